# SPDX-License-Identifier: Apache-2.0
from lmc_store.cache_engine import LMCacheEngine, LMCacheOffloadRunner
from lmc_store.config import LMCacheEngineConfig
from lmc_store.gpu_connector import VLLMNestedTupleGPUConnector

__all__ = [
    "LMCacheEngine",
    "LMCacheEngineConfig",
    "LMCacheOffloadRunner",
    "VLLMNestedTupleGPUConnector",
]
