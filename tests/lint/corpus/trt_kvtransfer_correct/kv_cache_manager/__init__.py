from .block_manager import BlockManager
from .executor import PyExecutor
from .transfer import KVCacheTransferManager

__all__ = ["BlockManager", "PyExecutor", "KVCacheTransferManager"]
