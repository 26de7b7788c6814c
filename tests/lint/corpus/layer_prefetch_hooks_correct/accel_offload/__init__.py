from .big_modeling import cpu_offload_with_layer_prefetch
from .hooks import LayerwisePrefetchHook, ModelHook, add_hook_to_module

__all__ = ["LayerwisePrefetchHook", "ModelHook", "add_hook_to_module", "cpu_offload_with_layer_prefetch"]
