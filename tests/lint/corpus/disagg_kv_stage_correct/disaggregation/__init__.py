from disaggregation.config import CacheTransceiverConfig
from disaggregation.transceiver import KvCacheSender

__all__ = ["CacheTransceiverConfig", "KvCacheSender"]
