"""Hierarchical KV cache (device L1 / pinned host L2), SGLang HiCache shape.

Models the controller that backs up device KV pages into a pinned host pool
(write-through) and loads them back layer by layer.

Both side streams are ordered behind the compute stream: the write path records
its start event on the compute stream before switching streams, and the load path
makes the load stream wait for the compute stream before reusing freed slots.
"""

from .controller import HiCacheController
from .memory_pool import MHATokenToKVPool, MHATokenToKVPoolHost

__all__ = ["HiCacheController", "MHATokenToKVPool", "MHATokenToKVPoolHost"]
