from .config import SenderConfig, TransferStatus
from .sender import KVSender

__all__ = ["KVSender", "SenderConfig", "TransferStatus"]
