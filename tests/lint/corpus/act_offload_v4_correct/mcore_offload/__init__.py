from .handler import ChunkOffloadHandler
from .hooks import group_prefetch_offload_commit, offload_saved_tensors

__all__ = ["ChunkOffloadHandler", "group_prefetch_offload_commit", "offload_saved_tensors"]
