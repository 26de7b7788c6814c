from hicache_lb.controller import HiCacheLoadController

__all__ = ["HiCacheLoadController"]
