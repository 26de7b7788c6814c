"""2-D explicit heat diffusion on the GPU with asynchronous checkpointing."""

from .checkpoint import Checkpointer
from .solver import GridSpec, HeatSolver

__all__ = ["Checkpointer", "GridSpec", "HeatSolver"]
