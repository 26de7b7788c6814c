from .scheduler import OffloadingConnectorMetadata, OffloadingConnectorScheduler
from .worker import OffloadingConnectorWorker

__all__ = [
    "OffloadingConnectorMetadata",
    "OffloadingConnectorScheduler",
    "OffloadingConnectorWorker",
]
