"""Activation offloading for a stack of transformer layers in the shape of Transformer Engine /
Megatron-core's CPU offload: tensors saved for backward are tagged by a saved-tensors hook, the
group of a layer is copied to pinned host memory when the layer's forward commits, and reloaded
one group ahead during backward into a small pool of reusable device staging buffers."""

from .context import get_cpu_offload_context

__all__ = ["get_cpu_offload_context"]
