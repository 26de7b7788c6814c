from cpu_connector.scheduler import CpuConnectorScheduler
from cpu_connector.worker import CpuConnectorWorker

__all__ = ["CpuConnectorScheduler", "CpuConnectorWorker"]
