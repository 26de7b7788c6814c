"""FlexGen-style decode loop: KV cache streamed GPU -> pinned CPU -> disk with overlapped I/O."""
from .flex_model import OffloadedDecoder
from .policy import Policy

__all__ = ["OffloadedDecoder", "Policy"]
