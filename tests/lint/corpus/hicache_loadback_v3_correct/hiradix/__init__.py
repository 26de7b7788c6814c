from hiradix.cache_controller import HiCacheController
from hiradix.hiradix_cache import HiRadixCache

__all__ = ["HiCacheController", "HiRadixCache"]
