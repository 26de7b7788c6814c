from .cpu_offload import (
    AsyncDoubleBufferGroupOffloadHandler,
    CpuOffloadHookWithOffloadHandler,
    get_cpu_offload_context,
    group_prefetch_offload_commit,
)

__all__ = [
    "AsyncDoubleBufferGroupOffloadHandler",
    "CpuOffloadHookWithOffloadHandler",
    "get_cpu_offload_context",
    "group_prefetch_offload_commit",
]
