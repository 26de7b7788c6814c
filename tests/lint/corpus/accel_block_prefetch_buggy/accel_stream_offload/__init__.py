from .big_modeling import BlockOffloader, cpu_offload_with_prefetch
from .hooks import ModelHook, PrefetchOffloadHook, add_hook_to_module, remove_hook_from_module

__all__ = [
    "BlockOffloader",
    "ModelHook",
    "PrefetchOffloadHook",
    "add_hook_to_module",
    "cpu_offload_with_prefetch",
    "remove_hook_from_module",
]
