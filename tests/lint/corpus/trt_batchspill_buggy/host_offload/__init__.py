from .offloader import HostKVOffloader
from .spill import DiskSpiller

__all__ = ["HostKVOffloader", "DiskSpiller"]
