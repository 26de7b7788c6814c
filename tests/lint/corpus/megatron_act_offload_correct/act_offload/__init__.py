from .context import get_cpu_offload_context

__all__ = ["get_cpu_offload_context"]
