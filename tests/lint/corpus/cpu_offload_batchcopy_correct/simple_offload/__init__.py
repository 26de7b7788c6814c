from simple_offload.worker import SimpleCPUOffloadWorker

__all__ = ["SimpleCPUOffloadWorker"]
