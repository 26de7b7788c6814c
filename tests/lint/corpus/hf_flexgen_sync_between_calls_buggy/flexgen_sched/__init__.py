from .policy import Policy
from .engine import OverlapEngine

__all__ = ["Policy", "OverlapEngine"]
