from .engine import ZeroOffloadEngine

__all__ = ["ZeroOffloadEngine"]
