from .handler import AsyncDoubleBufferGroupOffloadHandler
from .hooks import CpuOffloadHookWithOffloadHandler, get_cpu_offload_context

__all__ = [
    "AsyncDoubleBufferGroupOffloadHandler",
    "CpuOffloadHookWithOffloadHandler",
    "get_cpu_offload_context",
]
