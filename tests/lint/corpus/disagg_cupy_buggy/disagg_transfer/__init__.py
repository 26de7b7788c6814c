from .config import CacheTransceiverConfig
from .transceiver import KvCacheTransceiver
