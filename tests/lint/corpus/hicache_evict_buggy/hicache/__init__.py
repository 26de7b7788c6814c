from hicache.cache_controller import HiCacheController
from hicache.hiradix_cache import HiRadixCache

__all__ = ["HiCacheController", "HiRadixCache"]
