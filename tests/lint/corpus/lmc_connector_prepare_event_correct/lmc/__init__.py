from lmc.cache_engine import LMCacheEngine
from lmc.config import LMCacheEngineConfig

__all__ = ["LMCacheEngine", "LMCacheEngineConfig"]
