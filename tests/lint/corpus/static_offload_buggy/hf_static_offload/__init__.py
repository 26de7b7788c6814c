from .configuration import StaticCacheConfig
from .cache_utils import OffloadedStaticKVCache

__all__ = ["StaticCacheConfig", "OffloadedStaticKVCache"]
