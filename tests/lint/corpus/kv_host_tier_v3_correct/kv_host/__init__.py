from .executor import PyExecutor
from .host_tier import HostTierSpiller
from .offload_manager import KVCacheHostOffloader

__all__ = ["HostTierSpiller", "KVCacheHostOffloader", "PyExecutor"]
