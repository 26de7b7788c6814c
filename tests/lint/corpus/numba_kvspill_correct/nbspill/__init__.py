from .config import SpillConfig
from .runner import KVRunner

__all__ = ["KVRunner", "SpillConfig"]
