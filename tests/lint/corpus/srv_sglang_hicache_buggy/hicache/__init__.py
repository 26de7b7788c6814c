"""Hierarchical KV cache (device L1 / pinned host L2), SGLang HiCache shape.

Models the controller that backs up device KV pages into a pinned host pool
(write-through) and loads them back layer by layer.

Bugs:
- ``start_writing`` records its start event while the write stream is already
  current, so the event marks a point on the write stream itself and the backup
  copy is not ordered behind the kernels that filled the device pages (KVG001).
- ``start_loading`` scatters host pages into device slots that were just freed
  without ordering the load stream behind the compute stream (KVG004).
"""

from .controller import HiCacheController
from .memory_pool import MHATokenToKVPool, MHATokenToKVPoolHost

__all__ = ["HiCacheController", "MHATokenToKVPool", "MHATokenToKVPoolHost"]
