from .block_manager import WindowBlockManager
from .block_pool import BlockPool, KVCacheBlock
from .config import KvCacheConfig
from .transfer_manager import KVCacheTransferManager
