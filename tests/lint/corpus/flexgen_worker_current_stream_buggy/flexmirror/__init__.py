"""FlexGen-style decoding where every layer's KV cache is mirrored to pinned host memory by a
copy thread, so that a batch can be swapped out of the GPU between generation steps."""

from .engine import MirroredKVEngine
from .policy import Policy

__all__ = ["MirroredKVEngine", "Policy"]
