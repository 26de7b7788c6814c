from .config import KvCacheConfig
from .resource_manager import KVCacheManager

__all__ = ["KvCacheConfig", "KVCacheManager"]
