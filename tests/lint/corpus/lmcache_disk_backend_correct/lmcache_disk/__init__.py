from .cache_engine import LMCacheEngine
from .gpu_connector import VLLMPagedMemGPUConnectorV2
from .local_disk_backend import LocalDiskBackend, LocalDiskConfig

__all__ = [
    "LMCacheEngine",
    "LocalDiskBackend",
    "LocalDiskConfig",
    "VLLMPagedMemGPUConnectorV2",
]
