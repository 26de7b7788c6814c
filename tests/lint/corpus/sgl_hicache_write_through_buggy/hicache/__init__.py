from .cache_controller import HiCacheController
from .hiradix_cache import HiRadixBackupTracker
from .memory_pool_host import MHATokenToKVPoolHost

__all__ = ["HiCacheController", "HiRadixBackupTracker", "MHATokenToKVPoolHost"]
