from .config import OffloadConfig
from .host_pool import HostBlockPool
from .worker import CupyOffloadWorker

__all__ = ["CupyOffloadWorker", "HostBlockPool", "OffloadConfig"]
