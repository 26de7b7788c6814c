from .big_modeling import attach_streamed_offload, remove_streamed_offload
from .state import StreamingState
from .streamed_hook import StreamedAlignDevicesHook

__all__ = ["attach_streamed_offload", "remove_streamed_offload", "StreamingState", "StreamedAlignDevicesHook"]
