from .engine import FlexEngine
from .policy import OffloadPolicy

__all__ = ["FlexEngine", "OffloadPolicy"]
