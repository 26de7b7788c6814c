"""Big-model inference by streaming: every decoder layer's weights live flattened in pinned host
memory and are copied into one of two device slots just ahead of use, through accelerate-style
module hooks."""

from .dispatch import dispatch_streamed

__all__ = ["dispatch_streamed"]
