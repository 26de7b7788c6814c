from .disk_device import TorchDisk
from .kv_store import DiskKVStore

__all__ = ["TorchDisk", "DiskKVStore"]
