from .big_modeling import cpu_offload_with_prefetch

__all__ = ["cpu_offload_with_prefetch"]
