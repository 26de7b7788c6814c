"""Host/disk spill tier for a paged KV cache backed by CuPy."""

from .config import SpillConfig
from .engine import PagedKVEngine

__all__ = ["PagedKVEngine", "SpillConfig"]
