from .checkpoint import CheckpointWriter
from .simulation import HeatSimulation, SimConfig

__all__ = ["CheckpointWriter", "HeatSimulation", "SimConfig"]
