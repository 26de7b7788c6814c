"""Layer-by-layer MLP execution with weights streamed from pinned host memory (Numba)."""
from .config import OffloadConfig
from .executor import OffloadedMLP

__all__ = ["OffloadConfig", "OffloadedMLP"]
