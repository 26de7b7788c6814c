from .pools import DeviceTokenPool, HostTokenPool
from .transfer import HostTransferEngine


class Scheduler:
    def __init__(self, model, storage, device_tokens=65536, host_tokens=262144, token_numel=4096):
        self.model = model
        self.device_pool = DeviceTokenPool(device_tokens, token_numel)
        self.host_pool = HostTokenPool(host_tokens, token_numel)
        self.transfer = HostTransferEngine(self.device_pool, self.host_pool, storage)

    def event_loop_step(self, batch):
        output = self.model(batch, self.device_pool.kv)
        for node in batch.finished_prefixes:
            node.backup = self.transfer.backup(node.device_slots, node.hash)
        for node in batch.hit_on_host:
            self.transfer.load(node.host_slots, node.reused_device_slots)
        ready = self.transfer.loads_landed()
        return output, ready
