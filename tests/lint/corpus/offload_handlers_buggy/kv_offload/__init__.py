from kv_offload.handlers import CpuGpuOffloadingHandlers

__all__ = ["CpuGpuOffloadingHandlers"]
