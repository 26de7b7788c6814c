"""LMCache-style engine: paged GPU connector + local-disk storage backend.

Models a cache engine that stores 16-block chunks of a vLLM paged KV cache into
pinned MemoryObjs on a store stream, persists them with a thread-pool disk
writer, and retrieves chunks back into freshly scheduled GPU blocks.

The store is asynchronous: the connector returns an event recorded on the store
stream after the copies and the disk writer synchronizes on it before reading
the buffer. Loads order the load stream behind the compute stream first.
"""

from .engine import LMCacheEngine, create_engine

__all__ = ["LMCacheEngine", "create_engine"]
