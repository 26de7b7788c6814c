from .chunk import Chunk
from .chunk_manager import ChunkManager
from .gemini_mgr import GeminiManager
from .memstats import MemStatsCollector

__all__ = ["Chunk", "ChunkManager", "GeminiManager", "MemStatsCollector"]
