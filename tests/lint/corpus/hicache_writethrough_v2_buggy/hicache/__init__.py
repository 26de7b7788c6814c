from .cache_controller import CacheOperation, HiCacheController
from .hiradix_cache import HiRadixCache, TreeNode
from .memory_pool import MHATokenToKVPool, PagedTokenToKVPoolAllocator
from .memory_pool_host import MHATokenToKVPoolHost
