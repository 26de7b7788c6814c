from simple_cpu_offload.worker import SimpleCPUOffloadWorker

__all__ = ["SimpleCPUOffloadWorker"]
