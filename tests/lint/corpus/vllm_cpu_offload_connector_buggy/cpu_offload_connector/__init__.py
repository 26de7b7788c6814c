"""CPU offloading KV connector (worker side) for the fork's v1 engine."""

from .metadata import CPUOffloadConnectorMetadata, ReqTransferSpec, TransferDirection
from .worker import CPUOffloadWorker

__all__ = [
    "CPUOffloadConnectorMetadata",
    "CPUOffloadWorker",
    "ReqTransferSpec",
    "TransferDirection",
]
