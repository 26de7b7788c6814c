from kv_host_offload.config import HostOffloadConfig
from kv_host_offload.offloader import KVHostOffloader

__all__ = ["HostOffloadConfig", "KVHostOffloader"]
