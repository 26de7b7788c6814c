"""Host-resident key/value cache with a one-layer-ahead device window."""

from .cache_utils import HostOffloadedCache
from .configuration import CacheOffloadConfig

__all__ = ["CacheOffloadConfig", "HostOffloadedCache"]
