# SPDX-License-Identifier: Apache-2.0
from lmcache_lw.cache_engine import LMCacheEngine
from lmcache_lw.config import LMCacheEngineConfig
from lmcache_lw.gpu_connector import VLLMPagedMemLayerwiseGPUConnector

__all__ = ["LMCacheEngine", "LMCacheEngineConfig", "VLLMPagedMemLayerwiseGPUConnector"]
