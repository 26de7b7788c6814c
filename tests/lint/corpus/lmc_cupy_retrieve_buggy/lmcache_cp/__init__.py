from lmcache_cp.cache_engine import LMCacheEngine, RetrieveRequest
from lmcache_cp.config import LayerwiseRetrieveConfig

__all__ = ["LMCacheEngine", "LayerwiseRetrieveConfig", "RetrieveRequest"]
