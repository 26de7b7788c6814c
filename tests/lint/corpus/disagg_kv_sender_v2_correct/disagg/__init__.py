from .config import CacheTransceiverConfig
from .transceiver import KvCacheTransceiver

__all__ = ["CacheTransceiverConfig", "KvCacheTransceiver"]
