"""Paged-memory KV store path (LMCache-style GPU connector + local CPU backend)."""

from .engine import LMCacheEngine, LocalCPUBackend, PinnedMemoryAllocator
from .gpu_connector import VLLMPagedMemGPUConnector
from .streams import StreamRegistry

__all__ = [
    "LMCacheEngine",
    "LocalCPUBackend",
    "PinnedMemoryAllocator",
    "VLLMPagedMemGPUConnector",
    "StreamRegistry",
]
