# SPDX-License-Identifier: Apache-2.0
"""Layer-wise KV cache offloading for paged-attention serving engines."""

# First Party
from lmc_store.cache_engine import LMCacheEngine
from lmc_store.config import LMCacheEngineConfig
from lmc_store.gpu_connector import VLLMPagedMemLayerwiseGPUConnector

__all__ = [
    "LMCacheEngine",
    "LMCacheEngineConfig",
    "VLLMPagedMemLayerwiseGPUConnector",
]
