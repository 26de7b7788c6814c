from kv_spill.config import SpillConfig
from kv_spill.spiller import ChunkSpiller

__all__ = ["ChunkSpiller", "SpillConfig"]
