from .engine import OffloadEngine

__all__ = ["OffloadEngine"]
