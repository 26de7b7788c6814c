from .big_modeling import cpu_offload_with_streams
from .hooks import StreamedAlignDevicesHook

__all__ = ["StreamedAlignDevicesHook", "cpu_offload_with_streams"]
