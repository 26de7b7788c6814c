from trtllm_kv.block_manager import BlockManager, KVCacheManager
from trtllm_kv.block_pool import BlockPool, KVCacheBlock
from trtllm_kv.kv_cache_config import KvCacheConfig
from trtllm_kv.transfer_manager import KVCacheTransferManager
