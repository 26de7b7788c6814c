"""Pinned host mirror of the device pool, layer-first layout."""

from typing import List

import torch


class MHATokenToKVPoolHost:
    def __init__(self, device_pool, num_pages: int):
        self.page_size = device_pool.page_size
        self.layer_num = device_pool.layer_num
        k0 = device_pool.k_buffer[0]
        shape = (self.layer_num, num_pages * self.page_size) + tuple(k0.shape[1:])
        self.k_buffer = torch.empty(shape, dtype=k0.dtype, pin_memory=True)
        self.v_buffer = torch.empty(shape, dtype=k0.dtype, pin_memory=True)

    def load_to_device_per_layer(self, device_pool, host_pages: List[int],
                                 device_pages: List[int], layer_id: int) -> None:
        ps = self.page_size
        dst_k, dst_v = device_pool.k_buffer[layer_id], device_pool.v_buffer[layer_id]
        for h, d in zip(host_pages, device_pages):
            # expect: KVG004
            dst_k[d * ps:(d + 1) * ps].copy_(self.k_buffer[layer_id, h * ps:(h + 1) * ps],
                                             non_blocking=True)
            # expect: KVG004
            dst_v[d * ps:(d + 1) * ps].copy_(self.v_buffer[layer_id, h * ps:(h + 1) * ps],
                                             non_blocking=True)
