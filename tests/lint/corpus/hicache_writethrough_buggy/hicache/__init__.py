"""Hierarchical KV cache: device radix tree backed by a pinned host pool."""

from hicache.cache_controller import CacheOperation, HiCacheAck, HiCacheController
from hicache.hiradix_cache import HiRadixCache, TreeNode
from hicache.memory_pool import MHATokenToKVPool
from hicache.memory_pool_host import MHATokenToKVPoolHost
