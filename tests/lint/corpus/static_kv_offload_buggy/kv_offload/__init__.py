from .cache_config import OffloadedCacheConfig
from .offloaded_static_cache import OffloadedStaticCache

__all__ = ["OffloadedCacheConfig", "OffloadedStaticCache"]
