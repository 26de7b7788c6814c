"""Pinned host mirror of the device KV pool, page-contiguous per layer."""
from typing import List

import torch


class MHATokenToKVPoolHost:
    def __init__(self, device_pool, host_to_device_ratio: float, page_size: int):
        self.page_size = page_size
        self.layer_num = device_pool.layer_num
        self.size = int(device_pool.size * host_to_device_ratio) // page_size * page_size
        shape = (self.layer_num, self.size, device_pool.head_num, device_pool.head_dim)
        self.k_buffer = torch.empty(shape, dtype=device_pool.dtype, pin_memory=True)
        self.v_buffer = torch.empty(shape, dtype=device_pool.dtype, pin_memory=True)
        self.free_pages: List[int] = list(range(0, self.size, page_size))

    def alloc(self, num_pages: int) -> List[int]:
        if num_pages > len(self.free_pages):
            return []
        pages, self.free_pages = self.free_pages[:num_pages], self.free_pages[num_pages:]
        return pages

    def free(self, pages: List[int]) -> None:
        self.free_pages.extend(pages)

    def backup_from_device_all_layer(self, device_pool, host_pages: List[int], device_pages: List[int]) -> None:
        """Device -> host for every layer; runs on whatever stream is current."""
        p = self.page_size
        for layer_id in range(self.layer_num):
            dev_k, dev_v = device_pool.k_buffer[layer_id], device_pool.v_buffer[layer_id]
            for h, d in zip(host_pages, device_pages):
                self.k_buffer[layer_id, h : h + p].copy_(dev_k[d : d + p], non_blocking=True)
                self.v_buffer[layer_id, h : h + p].copy_(dev_v[d : d + p], non_blocking=True)

    def load_to_device_per_layer(self, device_pool, host_pages: List[int], device_pages: List[int], layer_id: int) -> None:
        p = self.page_size
        dev_k, dev_v = device_pool.k_buffer[layer_id], device_pool.v_buffer[layer_id]
        for h, d in zip(host_pages, device_pages):
            dev_k[d : d + p].copy_(self.k_buffer[layer_id, h : h + p], non_blocking=True)
            dev_v[d : d + p].copy_(self.v_buffer[layer_id, h : h + p], non_blocking=True)
