from .offload_handler import ChunkOffloadHandler
from .offload_hooks import group_prefetch_offload_commit, group_prefetch_offload_start
from .transformer_mlp import OffloadedMLP

__all__ = [
    "ChunkOffloadHandler",
    "OffloadedMLP",
    "group_prefetch_offload_commit",
    "group_prefetch_offload_start",
]
