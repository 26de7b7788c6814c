from .cache_controller import CacheOperation, HiCacheController
from .hiradix_cache import HiRadixCache, WritePolicy

__all__ = ["CacheOperation", "HiCacheController", "HiRadixCache", "WritePolicy"]
