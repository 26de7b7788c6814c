from .cache_engine import CacheEngineKey, LMCacheEngine
from .gpu_connector import VLLMPagedMemGPUConnectorV2
from .memory_management import MemoryObj, PinnedMemoryAllocator

__all__ = ["CacheEngineKey", "LMCacheEngine", "MemoryObj", "PinnedMemoryAllocator", "VLLMPagedMemGPUConnectorV2"]
