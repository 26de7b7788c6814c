"""Sequential CPU offload with prefetch, in the shape of accelerate / diffusers offload hooks: the
decoder layers' weights live in pinned host memory; two device slots hold the weights of the
layer being run and of the next one, loaded by forward pre-hooks on a side stream."""

from .offloader import attach_layer_offload

__all__ = ["attach_layer_offload"]
