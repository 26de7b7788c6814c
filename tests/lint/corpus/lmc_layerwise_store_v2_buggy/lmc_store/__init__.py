# SPDX-License-Identifier: Apache-2.0
from lmc_store.cache_engine import LayerwiseCacheEngine, LocalCPUBackend
from lmc_store.config import LMCacheEngineConfig
from lmc_store.gpu_connector import LayerwiseGPUConnector

__all__ = [
    "LayerwiseCacheEngine",
    "LayerwiseGPUConnector",
    "LMCacheEngineConfig",
    "LocalCPUBackend",
]
