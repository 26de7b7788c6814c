from kv_offload.cpu_gpu import CpuGpuOffloadingHandlers
from kv_offload.worker import OffloadingWorker

__all__ = ["CpuGpuOffloadingHandlers", "OffloadingWorker"]
