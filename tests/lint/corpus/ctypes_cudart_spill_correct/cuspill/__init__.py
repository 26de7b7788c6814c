"""KV block spill to disk through raw libcudart calls."""
from .spill import BlockSpiller

__all__ = ["BlockSpiller"]
