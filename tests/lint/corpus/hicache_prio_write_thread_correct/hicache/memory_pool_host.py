"""Pinned host mirror of the device KV pool (SGLang's MHATokenToKVPoolHost, layer-first
layout). Copies run on whatever stream is current on the calling thread."""

import threading
from typing import List

import torch

from hicache.memory_pool import MHATokenToKVPool, PagedAllocator


class MHATokenToKVPoolHost:
    def __init__(self, device_pool: MHATokenToKVPool, host_to_device_ratio: float = 2.0):
        self.device_pool = device_pool
        self.page_size = device_pool.page_size
        self.layer_num = device_pool.layer_num
        self.size = int(device_pool.size * host_to_device_ratio)
        head_num, head_dim = device_pool.k_buffer[0].shape[1:]
        self.kv_buffer = torch.empty(
            (2, self.layer_num, self.size, head_num, head_dim),
            dtype=device_pool.k_buffer[0].dtype,
            pin_memory=True,
        )
        self.allocator = PagedAllocator(self.size // self.page_size - 1)
        self.lock = threading.RLock()
        self.in_flight = set()

    def alloc(self, num_pages: int):
        with self.lock:
            return self.allocator.alloc(num_pages)

    def protect_write(self, host_pages: List[int]) -> None:
        with self.lock:
            self.in_flight.update(host_pages)

    def complete_io(self, host_pages: List[int]) -> None:
        with self.lock:
            self.in_flight.difference_update(host_pages)

    def write_page_all_layers(self, host_pages: List[int], device_pages: List[int]) -> None:
        p = self.page_size
        for layer_id in range(self.layer_num):
            k_src = self.device_pool.k_buffer[layer_id]
            v_src = self.device_pool.v_buffer[layer_id]
            for h, d in zip(host_pages, device_pages):
                self.kv_buffer[0, layer_id, h * p : (h + 1) * p].copy_(
                    k_src[d * p : (d + 1) * p], non_blocking=True
                )
                self.kv_buffer[1, layer_id, h * p : (h + 1) * p].copy_(
                    v_src[d * p : (d + 1) * p], non_blocking=True
                )
