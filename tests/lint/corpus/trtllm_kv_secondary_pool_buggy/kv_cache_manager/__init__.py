from .block_pool import BlockPool, CacheLevel, KVCacheBlock
from .transfer_manager import KVCacheTransferManager

__all__ = ["BlockPool", "CacheLevel", "KVCacheBlock", "KVCacheTransferManager"]
