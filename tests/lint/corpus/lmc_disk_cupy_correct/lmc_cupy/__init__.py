from lmc_cupy.cache_engine import LMCacheEngine
from lmc_cupy.config import LMCacheConfig

__all__ = ["LMCacheConfig", "LMCacheEngine"]
