from .disk import DiskKVStore
from .settings import SpillSettings

__all__ = ["DiskKVStore", "SpillSettings"]
