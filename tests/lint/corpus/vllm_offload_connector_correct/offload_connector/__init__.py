from .connector import CPUOffloadConnector
from .metadata import CPUOffloadConnectorMetadata, ReqMeta

__all__ = ["CPUOffloadConnector", "CPUOffloadConnectorMetadata", "ReqMeta"]
