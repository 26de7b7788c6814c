from .engine import SpillEngine
from .spec import Direction, TransferSpec

__all__ = ["SpillEngine", "Direction", "TransferSpec"]
