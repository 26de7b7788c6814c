"""The scheduler step: order the side streams, load and prefetch what the batch needs, run the
forward pass, back up the pages it filled."""

import torch

from hicache_sync.controller import HiCacheController


class Scheduler:
    def __init__(self, model, num_device_pages, num_host_pages, page_numel):
        self.model = model
        self.controller = HiCacheController(num_device_pages, num_host_pages, page_numel)

    def step(self, batch):
        self.controller.begin_step()
        self.controller.load(batch.load_host_pages, batch.load_device_pages)
        prefetched = self.controller.prefetch(batch.next_host_pages, batch.next_device_pages)
        self.model.forward(batch, self.controller.device_kv)
        torch.cuda.current_stream().wait_event(prefetched)
        return self.controller.backup(batch.backup_host_pages, batch.backup_device_pages)
