from sgl_hicache.cache_controller import HiCacheLoadController
from sgl_hicache.layer_events import LayerDoneCounter

__all__ = ["HiCacheLoadController", "LayerDoneCounter"]
