from .disk_device import TorchDisk

__all__ = ["TorchDisk"]
