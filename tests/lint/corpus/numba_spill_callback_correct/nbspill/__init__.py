from .config import SpillConfig
from .engine import DecodeLoop

__all__ = ["DecodeLoop", "SpillConfig"]
