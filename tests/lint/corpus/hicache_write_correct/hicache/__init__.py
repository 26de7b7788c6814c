from hicache.cache_controller import CacheOperation, HiCacheAck, HiCacheController
from hicache.memory_pool_host import HostKVCache, MHATokenToKVPoolHost
