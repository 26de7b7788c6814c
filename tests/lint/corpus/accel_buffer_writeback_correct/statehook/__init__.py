from .dispatch import attach_stateful_offload
from .hooks import StatefulBufferOffloadHook

__all__ = ["attach_stateful_offload", "StatefulBufferOffloadHook"]
