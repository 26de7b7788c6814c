"""Hierarchical radix cache: owns both pools and the controller (constructed by the scheduler)."""

from hicache.cache_controller import HiCacheController
from hicache.memory_pool import DeviceKVPool, HostKVPool


class HiRadixCache:
    def __init__(self, size, host_size, page_size, layer_num, head_num, head_dim, dtype, device,
                 storage_dir):
        self.device_pool = DeviceKVPool(size, page_size, layer_num, head_num, head_dim, dtype, device)
        self.host_pool = HostKVPool(self.device_pool, host_size, layer_num, head_num, head_dim, dtype)
        self.cache_controller = HiCacheController(self.device_pool, self.host_pool, storage_dir)

    def write_backup(self, node):
        self.cache_controller.write(node.host_pages, node.device_pages, node.id)

    def load_back(self, node, device_pages):
        self.cache_controller.load(node.host_pages, device_pages)
        node.device_pages = device_pages
