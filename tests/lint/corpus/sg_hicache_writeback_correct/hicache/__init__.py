"""Hierarchical (GPU + pinned host) radix cache with write-back eviction."""

from .hiradix_cache import HiRadixCache

__all__ = ["HiRadixCache"]
