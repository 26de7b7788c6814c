from .cache import OffloadedStaticCache
from .constants import NUM_DEVICE_BUFFERS

__all__ = ["NUM_DEVICE_BUFFERS", "OffloadedStaticCache"]
