"""Spill GPU-resident KV blocks to local disk through a pinned staging ring."""
from .config import SpillConfig
from .spiller import BlockSpiller
from .streams import StreamSet

__all__ = ["BlockSpiller", "SpillConfig", "StreamSet"]
