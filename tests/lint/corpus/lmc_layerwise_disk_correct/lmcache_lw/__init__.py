from lmcache_lw.cache_engine import LMCacheEngine
from lmcache_lw.config import LMCacheEngineConfig

__all__ = ["LMCacheEngine", "LMCacheEngineConfig"]
