"""Host-memory tier for the paged KV cache of the PyTorch executor."""

from .config import KvCacheHostConfig
from .executor import PyExecutor
from .resource_manager import KVCacheManager

__all__ = ["KvCacheHostConfig", "KVCacheManager", "PyExecutor"]
