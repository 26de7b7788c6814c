from .kv_cache_transfer_manager import KVCacheTransferManager
from .resource_manager import KVCacheManager

__all__ = ["KVCacheTransferManager", "KVCacheManager"]
