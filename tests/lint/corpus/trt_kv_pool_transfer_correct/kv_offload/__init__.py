from .constants import CacheLevel, KvCacheConfig
from .kv_cache_manager import KVCacheManager

__all__ = ["CacheLevel", "KvCacheConfig", "KVCacheManager"]
