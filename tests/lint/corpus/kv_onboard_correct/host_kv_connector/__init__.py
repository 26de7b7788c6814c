"""Host-memory KV cache offload connector for the PyTorch backend."""

from .config import HostOffloadConfig
from .connector import HostOffloadConnectorWorker, OffloadMetadata
from .model_runner import ConnectorForwardRunner

__all__ = [
    "ConnectorForwardRunner",
    "HostOffloadConfig",
    "HostOffloadConnectorWorker",
    "OffloadMetadata",
]
