"""Page-first pinned host pool: one row per page holding every layer's K and V, so that a
page can go to storage as one contiguous buffer."""

from typing import List

import torch


class DeviceKVPool:

    def __init__(self, num_pages: int, page_size: int, num_layers: int, heads: int, head_dim: int,
                 dtype=torch.bfloat16, device="cuda"):
        self.num_layers = num_layers
        self.k_buffer = [torch.zeros(num_pages, page_size, heads, head_dim, dtype=dtype, device=device)
                         for _ in range(num_layers)]
        self.v_buffer = [torch.zeros(num_pages, page_size, heads, head_dim, dtype=dtype, device=device)
                         for _ in range(num_layers)]


class HostKVPool:

    def __init__(self, device_pool: DeviceKVPool, num_pages: int):
        k0 = device_pool.k_buffer[0]
        self.num_layers = device_pool.num_layers
        self.kv_buffer = torch.empty((num_pages, self.num_layers, 2) + tuple(k0.shape[1:]),
                                     dtype=k0.dtype, pin_memory=True)
        self.free_pages: List[int] = list(range(num_pages))

    def alloc(self, n: int):
        if n > len(self.free_pages):
            return None
        pages, self.free_pages = self.free_pages[:n], self.free_pages[n:]
        return pages

    def free(self, pages: List[int]) -> None:
        self.free_pages.extend(pages)

    def get_page(self, page: int) -> torch.Tensor:
        return self.kv_buffer[page]

    def backup_from_device_all_layer(self, device_pool: DeviceKVPool, host_pages: List[int],
                                     device_pages: List[int]) -> None:
        """Copies on the caller's current stream."""
        for layer in range(self.num_layers):
            k, v = device_pool.k_buffer[layer], device_pool.v_buffer[layer]
            for h, d in zip(host_pages, device_pages):
                self.kv_buffer[h, layer, 0].copy_(k[d], non_blocking=True)
                self.kv_buffer[h, layer, 1].copy_(v[d], non_blocking=True)
