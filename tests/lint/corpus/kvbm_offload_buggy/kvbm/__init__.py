from kvbm.layout import FullyContiguous, LayoutConfig
from kvbm.offload import OffloadManager

__all__ = ["FullyContiguous", "LayoutConfig", "OffloadManager"]
