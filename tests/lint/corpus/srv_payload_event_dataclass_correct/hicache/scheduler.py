from hicache.controller import HiCacheController
from hicache.memory_pool import DeviceKVPool, HostKVPool


class Scheduler:
    def __init__(self, model, storage):
        self.model = model
        self.device_pool = DeviceKVPool(4096, 1024)
        self.host_pool = HostKVPool(16384, 1024)
        self.cache_controller = HiCacheController(self.device_pool, self.host_pool, storage)

    def run_batch(self, batch):
        logits = self.model(batch, self.device_pool.kv)
        for node in batch.evictable_nodes:
            node.host_value = self.cache_controller.write(node.device_indices, node.id)
        return logits
