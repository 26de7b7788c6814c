from typing import List, Optional

import torch


class PagePool:
    free_pages: List[int]

    def alloc_pages(self, n: int) -> Optional[List[int]]:
        if n > len(self.free_pages):
            return None
        pages, self.free_pages = self.free_pages[:n], self.free_pages[n:]
        return pages

    def free(self, pages: List[int]) -> None:
        self.free_pages.extend(pages)


class MHATokenToKVPool(PagePool):
    def __init__(self, num_pages: int, page_size: int, layer_num: int, head_num: int, head_dim: int,
                 dtype: torch.dtype, device: str):
        self.page_size = page_size
        self.layer_num = layer_num
        self.device = device
        self.kv_buffer = [
            torch.zeros((2, (num_pages + 1) * page_size, head_num, head_dim), dtype=dtype, device=device)
            for _ in range(layer_num)
        ]
        self.free_pages: List[int] = list(range(1, num_pages + 1))

    def page_slice(self, layer_id: int, page: int) -> torch.Tensor:
        return self.kv_buffer[layer_id][:, page * self.page_size : (page + 1) * self.page_size]


class HostKVPool(PagePool):
    """Pinned host pool in page-first layout: [page, layer, 2, page_size, head_num, head_dim]."""

    def __init__(self, device_pool: MHATokenToKVPool, num_pages: int):
        k = device_pool.kv_buffer[0]
        self.page_size = device_pool.page_size
        self.layer_num = device_pool.layer_num
        self.kv_buffer = torch.empty(
            (num_pages, self.layer_num, 2, self.page_size, k.shape[2], k.shape[3]),
            dtype=k.dtype, pin_memory=True,
        )
        self.free_pages: List[int] = list(range(num_pages))

    def get_flat_page(self, page: int) -> torch.Tensor:
        return self.kv_buffer[page].flatten()

    def backup_from_device_all_layer(self, device_pool: MHATokenToKVPool, host_pages: List[int],
                                     device_pages: List[int]) -> None:
        for h, d in zip(host_pages, device_pages):
            for layer_id in range(self.layer_num):
                self.kv_buffer[h, layer_id].copy_(device_pool.page_slice(layer_id, d), non_blocking=True)

    def load_to_device_per_layer(self, device_pool: MHATokenToKVPool, host_pages: List[int],
                                 device_pages: List[int], layer_id: int) -> None:
        for h, d in zip(host_pages, device_pages):
            device_pool.page_slice(layer_id, d).copy_(self.kv_buffer[h, layer_id], non_blocking=True)
