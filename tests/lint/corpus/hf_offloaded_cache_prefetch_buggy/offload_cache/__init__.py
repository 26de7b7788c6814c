"""Offloaded static KV cache in the shape of transformers' OffloadedStaticCache, with a decoder that
drives it layer by layer."""

from offload_cache.cache import OffloadedStaticCache
from offload_cache.decoder import OffloadedDecoder

__all__ = ["OffloadedStaticCache", "OffloadedDecoder"]
