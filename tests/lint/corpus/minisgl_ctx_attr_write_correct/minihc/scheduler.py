"""Scheduler step: run the forward, then write finished prefixes through to host memory."""

import torch

from minihc.controller import HiCacheController
from minihc.kvcache import HostKVCache, KVCacheConfig, PagedKVCache


class Scheduler:
    def __init__(self, model, cfg: KVCacheConfig):
        self.model = model
        self.device_kv = PagedKVCache(cfg)
        self.host_kv = HostKVCache(cfg)
        self.controller = HiCacheController(self.device_kv, self.host_kv)
        self.backed_up = set()

    def run_batch(self, batch):
        logits = self.model(batch.input_ids, batch.positions, self.device_kv)
        for req in batch.finished:
            self.controller.prepare_write(req.node_id, req.device_pages)
        self.controller.start_write()
        self.backed_up.update(self.controller.poll_acks())
        return logits
