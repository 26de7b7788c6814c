from simple_kv_offload.worker import SimpleCPUOffloadWorker

__all__ = ["SimpleCPUOffloadWorker"]
