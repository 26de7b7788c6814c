from .config import SpillConfig
from .decoder import ChunkDecoder

__all__ = ["ChunkDecoder", "SpillConfig"]
