from cpu_kv_offload.config import CPUOffloadConfig
from cpu_kv_offload.worker import CPUOffloadWorker

__all__ = ["CPUOffloadConfig", "CPUOffloadWorker"]
