from .sim import NBodySim, SimParams
from .writer import SnapshotWriter

__all__ = ["NBodySim", "SimParams", "SnapshotWriter"]
