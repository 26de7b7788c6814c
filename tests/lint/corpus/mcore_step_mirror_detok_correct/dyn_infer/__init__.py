from .engine import DynamicEngine

__all__ = ["DynamicEngine"]
