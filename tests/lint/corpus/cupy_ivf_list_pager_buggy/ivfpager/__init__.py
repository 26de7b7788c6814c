"""IVF index whose inverted lists page between GPU memory and pinned host memory.

Hot lists stay resident in a fixed pool of GPU slots; cold lists are evicted to pinned host
slots and fetched back on demand. Both directions go through one batched driver copy
(``cuMemcpyBatchAsync``) on the pager's copy stream.
"""
from .index import GpuIvfIndex

__all__ = ["GpuIvfIndex"]
