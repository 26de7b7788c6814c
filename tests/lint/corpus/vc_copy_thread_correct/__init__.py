"""Worker-side CPU offload connector with a dedicated copy thread."""

from .worker import CPUOffloadConnectorWorker, StoreRequest
