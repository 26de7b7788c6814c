from .cuda_stream import CudaStream
from .kv_cache_manager import KvCacheConfig, KVCacheManager

__all__ = ["CudaStream", "KvCacheConfig", "KVCacheManager"]
