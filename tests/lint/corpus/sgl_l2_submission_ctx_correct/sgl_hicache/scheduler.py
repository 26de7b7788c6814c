"""Scheduler: a tiny model writing its KV into the device pool, then write-through backups."""

import torch

from sgl_hicache.cache_controller import HiCacheController
from sgl_hicache.memory_pool import MHATokenToKVPool
from sgl_hicache.pool_host import MHATokenToKVPoolHost


class AttentionLayer(torch.nn.Module):
    def __init__(self, layer_id: int, hidden: int, head_num: int, head_dim: int):
        super().__init__()
        self.layer_id = layer_id
        self.head_num, self.head_dim = head_num, head_dim
        self.qkv = torch.nn.Linear(hidden, 3 * head_num * head_dim)

    def forward(self, hidden_states, out_cache_loc, pool):
        q, k, v = self.qkv(hidden_states).chunk(3, dim=-1)
        pool.set_kv_buffer(self.layer_id, out_cache_loc,
                           k.view(-1, self.head_num, self.head_dim), v.view(-1, self.head_num, self.head_dim))
        k_cache, _ = pool.get_kv_buffer(self.layer_id)
        return hidden_states + q * k_cache[out_cache_loc].flatten(1).mean()


class TinyModel(torch.nn.Module):
    def __init__(self, layer_num: int, hidden: int, head_num: int, head_dim: int):
        super().__init__()
        self.layers = torch.nn.ModuleList(AttentionLayer(i, hidden, head_num, head_dim) for i in range(layer_num))

    def forward(self, hidden_states, out_cache_loc, pool):
        for layer in self.layers:
            hidden_states = layer(hidden_states, out_cache_loc, pool)
        return hidden_states


class Scheduler:
    def __init__(self, layer_num=4, hidden=256, head_num=4, head_dim=64, size=4096, page_size=16):
        self.model = TinyModel(layer_num, hidden, head_num, head_dim).cuda()
        self.device_pool = MHATokenToKVPool(size, page_size, layer_num, head_num, head_dim)
        self.host_pool = MHATokenToKVPoolHost(self.device_pool)
        self.cache_controller = HiCacheController(self.device_pool, self.host_pool)
        self.backed_up = {}

    def run_batch(self, batch):
        if batch.load_back is not None:
            host_pages, device_pages, node_id = batch.load_back
            consumer = self.cache_controller.load(host_pages, device_pages, node_id)
            self.cache_controller.layer_done_counter.set_consumer(consumer)
        out = self.model(batch.hidden_states, batch.out_cache_loc, self.device_pool)
        for node_id, device_pages in batch.finished_prefixes:
            host_pages = self.cache_controller.write(device_pages, node_id)
            if host_pages is not None:
                self.backed_up[node_id] = host_pages
        return out
