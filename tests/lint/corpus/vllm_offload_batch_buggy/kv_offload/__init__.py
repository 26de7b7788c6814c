from kv_offload.worker import CpuGpuOffloadingHandler

__all__ = ["CpuGpuOffloadingHandler"]
