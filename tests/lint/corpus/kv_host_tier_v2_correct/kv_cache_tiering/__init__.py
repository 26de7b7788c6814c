from .block_pool import BlockPool
from .offload_manager import HostOffloadManager
from .resource_manager import TieredKVCacheManager
