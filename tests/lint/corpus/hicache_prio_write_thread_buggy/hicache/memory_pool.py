"""Device-side KV pool and a page allocator that hands out page ids on the host, in the shape
of SGLang's MHATokenToKVPool and its paged allocator."""

from typing import List, Optional

import torch


class MHATokenToKVPool:
    def __init__(self, size: int, page_size: int, head_num: int, head_dim: int, layer_num: int,
                 dtype: torch.dtype = torch.bfloat16, device: str = "cuda"):
        self.size = size
        self.page_size = page_size
        self.layer_num = layer_num
        self.device = device
        self.k_buffer = [
            torch.zeros((size + page_size, head_num, head_dim), dtype=dtype, device=device)
            for _ in range(layer_num)
        ]
        self.v_buffer = [
            torch.zeros((size + page_size, head_num, head_dim), dtype=dtype, device=device)
            for _ in range(layer_num)
        ]


class PagedAllocator:
    def __init__(self, num_pages: int):
        self.free_pages: List[int] = list(range(1, num_pages + 1))

    def alloc(self, need: int) -> Optional[List[int]]:
        if need > len(self.free_pages):
            return None
        pages, self.free_pages = self.free_pages[:need], self.free_pages[need:]
        return pages

    def free(self, pages: List[int]) -> None:
        self.free_pages.extend(pages)
