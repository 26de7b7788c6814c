from .cache_utils import OffloadedStaticCache
from .configuration_offload import OffloadConfig

__all__ = ["OffloadConfig", "OffloadedStaticCache"]
