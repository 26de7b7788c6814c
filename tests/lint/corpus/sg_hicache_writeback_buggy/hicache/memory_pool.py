"""Device KV pool (written by the attention backend) and its pinned host mirror."""

from typing import List, Optional

import torch

from .config import HOST_LAYOUT, KV_DTYPE, PAGE_SIZE


class MHATokenToKVPool:
    def __init__(self, num_pages: int, layer_num: int, head_num: int, head_dim: int):
        self.page_size = PAGE_SIZE
        self.size = num_pages * PAGE_SIZE
        self.layer_num = layer_num
        # one [2, size, head, dim] tensor per layer; index 0 holds K, 1 holds V
        self.kv_buffer: List[torch.Tensor] = [
            torch.zeros((2, self.size, head_num, head_dim), dtype=KV_DTYPE, device="cuda")
            for _ in range(layer_num)
        ]

    def set_kv_buffer(self, layer_id: int, loc: torch.Tensor, k: torch.Tensor, v: torch.Tensor):
        # called from the attention backend, i.e. on the forward stream
        self.kv_buffer[layer_id][0].index_copy_(0, loc, k)
        self.kv_buffer[layer_id][1].index_copy_(0, loc, v)

    def page_view(self, layer_id: int, page: int) -> torch.Tensor:
        start = page * self.page_size
        return self.kv_buffer[layer_id][:, start : start + self.page_size]


class MHATokenToKVPoolHost:
    def __init__(self, device_pool: MHATokenToKVPool, ratio: float):
        assert HOST_LAYOUT == "page_first", HOST_LAYOUT
        self.page_size = device_pool.page_size
        self.layer_num = device_pool.layer_num
        self.num_pages = int(device_pool.size * ratio) // self.page_size
        _, _, head_num, head_dim = device_pool.kv_buffer[0].shape
        # page-first: [page, layer, k/v, token, head, dim] so one page is contiguous
        self.kv_buffer = torch.empty(
            (self.num_pages, self.layer_num, 2, self.page_size, head_num, head_dim),
            dtype=KV_DTYPE,
            pin_memory=True,
        )
        self.free_pages: List[int] = list(range(self.num_pages))

    def alloc(self, num_pages: int) -> Optional[torch.Tensor]:
        if num_pages > len(self.free_pages):
            return None
        taken = self.free_pages[:num_pages]
        self.free_pages = self.free_pages[num_pages:]
        return torch.tensor(taken, dtype=torch.int64)

    def free(self, host_pages: torch.Tensor) -> None:
        self.free_pages.extend(host_pages.tolist())

    def backup_from_device_all_layer(
        self,
        device_pool: MHATokenToKVPool,
        host_pages: torch.Tensor,
        device_pages: torch.Tensor,
    ) -> None:
        for h_page, d_page in zip(host_pages.tolist(), device_pages.tolist()):
            for layer_id in range(self.layer_num):
                src = device_pool.page_view(layer_id, d_page)
                # expect: KVG001
                self.kv_buffer[h_page, layer_id].copy_(src, non_blocking=True)
