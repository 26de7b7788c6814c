from .pools import BlockRange, KVCacheBlockPool
from .transfer_manager import KVCacheTransferManager

__all__ = ["BlockRange", "KVCacheBlockPool", "KVCacheTransferManager"]
