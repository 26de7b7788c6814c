from .decoder import OffloadedDecoder
from .host_kv import HostKV

__all__ = ["HostKV", "OffloadedDecoder"]
