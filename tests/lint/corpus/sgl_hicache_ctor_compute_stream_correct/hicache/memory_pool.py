"""Device KV pool and page allocator in the shape of SGLang's MHATokenToKVPool and
PagedTokenToKVPoolAllocator."""

from typing import List, Optional

import torch


class MHATokenToKVPool:
    def __init__(self, num_pages: int, page_size: int, head_num: int, head_dim: int,
                 layer_num: int, dtype: torch.dtype = torch.float16):
        self.page_size = page_size
        self.layer_num = layer_num
        shape = (num_pages * page_size, head_num, head_dim)
        self.k_buffer = [torch.zeros(shape, dtype=dtype, device="cuda") for _ in range(layer_num)]
        self.v_buffer = [torch.zeros(shape, dtype=dtype, device="cuda") for _ in range(layer_num)]


class PagedTokenToKVPoolAllocator:
    def __init__(self, num_pages: int):
        self.free_pages: List[int] = list(range(1, num_pages))

    def alloc(self, n: int) -> Optional[List[int]]:
        if n > len(self.free_pages):
            return None
        pages, self.free_pages = self.free_pages[:n], self.free_pages[n:]
        return pages

    def free(self, pages: List[int]) -> None:
        self.free_pages.extend(pages)
