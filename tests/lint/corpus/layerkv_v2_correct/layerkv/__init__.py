# SPDX-License-Identifier: Apache-2.0
"""Layer-wise KV cache offloading to pinned CPU memory."""

from layerkv.config import LayerwiseConfig
from layerkv.connector import LayerwiseGPUConnector
from layerkv.engine import LayerwiseCacheEngine, LayerwisePrefillDriver, LocalCPUBackend
from layerkv.memory import MemoryObj, PinnedMemoryAllocator

__all__ = [
    "LayerwiseConfig",
    "LayerwiseGPUConnector",
    "LayerwiseCacheEngine",
    "LayerwisePrefillDriver",
    "LocalCPUBackend",
    "MemoryObj",
    "PinnedMemoryAllocator",
]
