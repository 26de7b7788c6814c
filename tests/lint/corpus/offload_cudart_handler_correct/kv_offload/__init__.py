from .cpu_gpu import CpuGpuOffloadingHandlers, SingleDirectionOffloadingHandler
from .worker import OffloadingHandler, OffloadingWorker, TransferResult, TransferSpec
