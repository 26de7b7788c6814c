from .cpu_offload import GroupOffloadHandler, get_cpu_offload_context

__all__ = ["GroupOffloadHandler", "get_cpu_offload_context"]
