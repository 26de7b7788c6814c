from .config import KvCacheTierConfig
from .manager import KVCacheManager

__all__ = ["KvCacheTierConfig", "KVCacheManager"]
