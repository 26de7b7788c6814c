from .spiller import BlockSpiller

__all__ = ["BlockSpiller"]
