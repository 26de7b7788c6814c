"""Pinned host mirror of the device pool; page copies run on the caller's current stream."""

import threading
from typing import List

import torch


class MHATokenToKVPoolHost:
    def __init__(self, device_pool, host_to_device_ratio: float = 2.0):
        self.page_size = device_pool.page_size
        self.layer_num = device_pool.layer_num
        k0 = device_pool.k_buffer[0]
        self.size = int(device_pool.size * host_to_device_ratio)
        shape = (self.layer_num, self.size) + tuple(k0.shape[1:])
        self.k_buffer = torch.empty(shape, dtype=k0.dtype, pin_memory=True)
        self.v_buffer = torch.empty(shape, dtype=k0.dtype, pin_memory=True)
        self.free_pages = list(range(self.size // self.page_size))
        self._layout_lock = threading.Lock()
        self._pending_release = []

    def alloc(self, num_pages: int):
        if num_pages > len(self.free_pages):
            return None
        pages, self.free_pages = self.free_pages[:num_pages], self.free_pages[num_pages:]
        return pages

    def acquire_layout(self) -> None:
        self._layout_lock.acquire()

    def release_layout(self, finish_event) -> None:
        # the layout may not change until the copies that use it are done
        if finish_event is not None:
            self._pending_release.append(finish_event)
        self._layout_lock.release()

    def backup_from_device_all_layer(self, device_pool, host_pages: List[int], device_pages: List[int]):
        ps = self.page_size
        for layer_id in range(self.layer_num):
            for hp, dp in zip(host_pages, device_pages):
                h, d = hp * ps, dp * ps
                # expect: KVG001
                self.k_buffer[layer_id, h : h + ps].copy_(device_pool.k_buffer[layer_id][d : d + ps], non_blocking=True)
                # expect: KVG001
                self.v_buffer[layer_id, h : h + ps].copy_(device_pool.v_buffer[layer_id][d : d + ps], non_blocking=True)

    def load_to_device_per_layer(self, device_pool, host_pages: List[int], device_pages: List[int], layer_id: int):
        ps = self.page_size
        for hp, dp in zip(host_pages, device_pages):
            h, d = hp * ps, dp * ps
            device_pool.k_buffer[layer_id][d : d + ps].copy_(self.k_buffer[layer_id, h : h + ps], non_blocking=True)
            device_pool.v_buffer[layer_id][d : d + ps].copy_(self.v_buffer[layer_id, h : h + ps], non_blocking=True)
