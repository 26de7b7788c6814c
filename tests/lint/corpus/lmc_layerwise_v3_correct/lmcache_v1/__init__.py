from .cache_engine import LMCacheEngine
from .config import LMCacheEngineConfig
from .gpu_connector import VLLMPagedMemLayerwiseGPUConnector
from .storage_backend import LocalDiskBackend

__all__ = [
    "LMCacheEngine",
    "LMCacheEngineConfig",
    "LocalDiskBackend",
    "VLLMPagedMemLayerwiseGPUConnector",
]
