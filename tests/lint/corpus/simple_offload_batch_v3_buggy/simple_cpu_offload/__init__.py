from .config import SimpleCPUOffloadConfig
from .connector import SimpleCPUOffloadConnectorWorker, SimpleCPUOffloadMetadata
from .worker import SimpleCPUOffloadWorker
