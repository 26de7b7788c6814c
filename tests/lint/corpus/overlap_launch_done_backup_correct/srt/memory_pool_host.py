"""Pinned host pool mirroring the paged device KV pool (SGLang HiCache L2): one K and one V
buffer per layer, page granular."""

import torch


class HostKVPool:
    def __init__(self, device_pool, num_pages: int):
        self.device_pool = device_pool
        self.layer_num = device_pool.layer_num
        self.page_size = device_pool.page_size
        k0 = device_pool.k_buffer[0]
        shape = (self.layer_num, num_pages * self.page_size) + tuple(k0.shape[1:])
        self.k_buffer = torch.empty(shape, dtype=k0.dtype, pin_memory=True)
        self.v_buffer = torch.empty(shape, dtype=k0.dtype, pin_memory=True)
        self.free_pages = list(range(num_pages))

    def alloc(self, num_pages: int):
        if num_pages > len(self.free_pages):
            return None
        pages, self.free_pages = self.free_pages[:num_pages], self.free_pages[num_pages:]
        return pages

    def backup_from_device_all_layer(self, host_pages, device_pages) -> None:
        p = self.page_size
        for layer_id in range(self.layer_num):
            for h, d in zip(host_pages, device_pages):
                self.k_buffer[layer_id, h * p : (h + 1) * p].copy_(
                    self.device_pool.k_buffer[layer_id][d * p : (d + 1) * p], non_blocking=True
                )
                self.v_buffer[layer_id, h * p : (h + 1) * p].copy_(
                    self.device_pool.v_buffer[layer_id][d * p : (d + 1) * p], non_blocking=True
                )
