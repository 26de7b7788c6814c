from .engine import TrtRunner

__all__ = ["TrtRunner"]
