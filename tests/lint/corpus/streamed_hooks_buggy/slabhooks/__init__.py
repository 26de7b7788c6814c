from .attach import attach_streamed_offload, remove_streamed_offload
from .hooks import StreamedOffloadHook

__all__ = ["StreamedOffloadHook", "attach_streamed_offload", "remove_streamed_offload"]
