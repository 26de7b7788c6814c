from .cache_base import Cache
from .offloaded_cache import OffloadedCache
from .offloaded_static_cache import OffloadedStaticCache

__all__ = ["Cache", "OffloadedCache", "OffloadedStaticCache"]
