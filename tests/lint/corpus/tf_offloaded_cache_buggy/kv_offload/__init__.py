"""Layer-wise KV offloading for generation with very long contexts."""
from .offloaded_cache import OffloadedDynamicCache

__all__ = ["OffloadedDynamicCache"]
