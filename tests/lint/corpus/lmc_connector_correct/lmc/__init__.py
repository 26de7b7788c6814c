from lmc.cache_engine import LMCacheEngine
from lmc.config import CacheEngineKey, LMCacheEngineConfig, LMCacheEngineMetadata
from lmc.gpu_connector import VLLMPagedMemGPUConnector
from lmc.storage_backend import LocalDiskBackend
