from .big_modeling import cpu_offload_with_stats, gather_offloaded_state_dict
from .hooks import ModelHook, add_hook_to_module, remove_hook_from_module
from .offload_hook import StatefulCpuOffloadHook

__all__ = [
    "ModelHook",
    "StatefulCpuOffloadHook",
    "add_hook_to_module",
    "cpu_offload_with_stats",
    "gather_offloaded_state_dict",
    "remove_hook_from_module",
]
