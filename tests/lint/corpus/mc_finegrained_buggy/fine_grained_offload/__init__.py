"""Fine-grained (per-module) activation offloading."""

from .layer_hooks import OffloadedLinearProj, get_offload_manager

__all__ = ["OffloadedLinearProj", "get_offload_manager"]
