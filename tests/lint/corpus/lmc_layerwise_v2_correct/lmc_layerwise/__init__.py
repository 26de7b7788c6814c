from lmc_layerwise.cache_engine import LMCacheLayerwiseConnectorWorker, LMCacheLayerwiseEngine
from lmc_layerwise.config import LMCacheEngineConfig
from lmc_layerwise.gpu_connector import VLLMPagedMemLayerwiseGPUConnector

__all__ = [
    "LMCacheEngineConfig",
    "LMCacheLayerwiseConnectorWorker",
    "LMCacheLayerwiseEngine",
    "VLLMPagedMemLayerwiseGPUConnector",
]
