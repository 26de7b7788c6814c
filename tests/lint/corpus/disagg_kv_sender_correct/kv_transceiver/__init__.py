from .layout import KvPoolLayout
from .transceiver import KvCacheTransceiver

__all__ = ["KvCacheTransceiver", "KvPoolLayout"]
