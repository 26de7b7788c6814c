"""Primary/secondary KV block pools with host offload for the PyTorch backend."""

from .resource_manager import KVCacheManager, KvCacheConfig

__all__ = ["KVCacheManager", "KvCacheConfig"]
