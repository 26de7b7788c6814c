"""Layer-wise KV cache offloading for paged attention engines."""

from layerkv.config import LayerwiseStoreConfig
from layerkv.engine import LayerwiseCacheEngine
from layerkv.gpu_connector import LayerwisePagedGPUConnector
from layerkv.runner import OffloadingModelRunner

__all__ = [
    "LayerwiseStoreConfig",
    "LayerwiseCacheEngine",
    "LayerwisePagedGPUConnector",
    "OffloadingModelRunner",
]
