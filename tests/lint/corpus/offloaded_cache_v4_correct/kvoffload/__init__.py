from .cache_utils import OffloadedDynamicCache, OffloadedLayer
from .configuration import OffloadConfig

__all__ = ["OffloadConfig", "OffloadedDynamicCache", "OffloadedLayer"]
