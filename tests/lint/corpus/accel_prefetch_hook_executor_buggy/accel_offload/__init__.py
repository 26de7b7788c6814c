from .big_modeling import cpu_offload_with_prefetch
from .hooks import ModelHook, PrefetchOffloadHook, add_hook_to_module

__all__ = ["cpu_offload_with_prefetch", "ModelHook", "PrefetchOffloadHook", "add_hook_to_module"]
