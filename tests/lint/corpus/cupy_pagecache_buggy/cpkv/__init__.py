"""Paged KV cache with host-side page offload, built on CuPy."""

from .device import StreamSet, init_pinned_pool
from .engine import PagedKVCache, PagedKVCacheConfig
from .spill import PageSpiller

__all__ = [
    "PagedKVCache",
    "PagedKVCacheConfig",
    "PageSpiller",
    "StreamSet",
    "init_pinned_pool",
]
