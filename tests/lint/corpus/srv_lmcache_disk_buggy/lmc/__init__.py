"""LMCache-style engine: paged GPU connector + local-disk storage backend.

Models a cache engine that stores 16-block chunks of a vLLM paged KV cache into
pinned MemoryObjs on a store stream, persists them with a thread-pool disk
writer, and retrieves chunks back into freshly scheduled GPU blocks.

Bugs:
- ``LMCacheEngine.store`` asks the connector for an asynchronous store
  (``sync=False``) and drops the completion event it returns, so the disk
  writer thread serialises the pinned buffer while the copy may still be
  filling it (KVG003).
- ``PagedGPUConnector.to_gpu`` scatters into GPU blocks on the load stream
  without ordering it behind the compute stream (KVG004).
"""

from .engine import LMCacheEngine, create_engine

__all__ = ["LMCacheEngine", "create_engine"]
