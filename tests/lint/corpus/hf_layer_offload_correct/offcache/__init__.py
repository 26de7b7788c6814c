"""Layer-wise offloaded dynamic KV cache, in the shape of transformers' ``Cache(offloading=True)``."""

from .cache import OffloadedDynamicCache
from .layers import DynamicLayer

__all__ = ["OffloadedDynamicCache", "DynamicLayer"]
