from .cache import OffloadedStaticCache
from .configuration import OffloadedStaticCacheConfig
from .modeling import OffloadedDecoder

__all__ = ["OffloadedStaticCache", "OffloadedStaticCacheConfig", "OffloadedDecoder"]
