from .config import LocalDiskConfig
from .local_disk_backend import LocalDiskBackend

__all__ = ["LocalDiskBackend", "LocalDiskConfig"]
