from .cache import OffloadedLayerCache

__all__ = ["OffloadedLayerCache"]
