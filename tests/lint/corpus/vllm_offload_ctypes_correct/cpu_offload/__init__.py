from cpu_offload.connector import CPUOffloadConnectorWorker

__all__ = ["CPUOffloadConnectorWorker"]
