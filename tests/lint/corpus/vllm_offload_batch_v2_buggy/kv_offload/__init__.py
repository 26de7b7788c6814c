from kv_offload.cpu_gpu import CpuGpuOffloadingHandler
from kv_offload.worker import OffloadingWorker

__all__ = ["CpuGpuOffloadingHandler", "OffloadingWorker"]
