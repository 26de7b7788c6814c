from sgl_hicache_nb.controller import HiCacheNumbaController, LayerDoneCounter
from sgl_hicache_nb.host_pool import HostKVPool

__all__ = ["HiCacheNumbaController", "HostKVPool", "LayerDoneCounter"]
