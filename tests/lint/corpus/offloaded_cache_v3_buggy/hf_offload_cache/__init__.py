from .cache import OffloadedHybridCache
from .configuration import CacheOffloadConfig
from .layers import DynamicLayer

__all__ = ["CacheOffloadConfig", "DynamicLayer", "OffloadedHybridCache"]
