from .cache_engine import LMCacheEngine
from .config import LMCacheEngineConfig, LMCacheEngineMetadata
from .gpu_connector import VLLMPagedMemLayerwiseGPUConnector
from .vllm_adapter import LMCacheConnectorV1Impl

__all__ = [
    "LMCacheConnectorV1Impl",
    "LMCacheEngine",
    "LMCacheEngineConfig",
    "LMCacheEngineMetadata",
    "VLLMPagedMemLayerwiseGPUConnector",
]
