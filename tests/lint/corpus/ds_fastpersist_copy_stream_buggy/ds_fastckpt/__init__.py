"""FastPersist-style checkpointing (deepspeed/io + a checkpoint engine): tensors are staged
from device memory into a pinned double buffer and written with DeepNVMe's async pwrite.
This fork stages on a dedicated copy stream so that saving does not serialize the training
stream."""
