from .disk_writer import MemmapWriter, WritePayload
from .hooks import StatefulBufferOffloadHook, add_hook_to_module, attach_buffer_offload

__all__ = [
    "MemmapWriter",
    "WritePayload",
    "StatefulBufferOffloadHook",
    "add_hook_to_module",
    "attach_buffer_offload",
]
