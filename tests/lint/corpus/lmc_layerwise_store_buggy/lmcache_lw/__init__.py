from lmcache_lw.cache_engine import LMCacheEngine, LMCacheLayerwiseSaver
from lmcache_lw.config import LMCacheEngineConfig

__all__ = ["LMCacheEngine", "LMCacheEngineConfig", "LMCacheLayerwiseSaver"]
