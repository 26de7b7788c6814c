from kv_offload.cpu_gpu import CpuGpuOffloadingHandlers, SingleDirectionOffloadingHandler
from kv_offload.worker import OffloadingWorker, TransferResult

__all__ = [
    "CpuGpuOffloadingHandlers",
    "OffloadingWorker",
    "SingleDirectionOffloadingHandler",
    "TransferResult",
]
