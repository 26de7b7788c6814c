from .cache_controller import CacheOperation, HiCacheController
from .layer_events import LayerDoneCounter, LayerLoadingEvent

__all__ = [
    "CacheOperation",
    "HiCacheController",
    "LayerDoneCounter",
    "LayerLoadingEvent",
]
