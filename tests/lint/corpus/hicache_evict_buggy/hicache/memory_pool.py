from typing import List, Optional

import torch


class MHATokenToKVPool:
    def __init__(self, size: int, page_size: int, dtype: torch.dtype,
                 head_num: int, head_dim: int, layer_num: int, device: str):
        self.size = size
        self.page_size = page_size
        self.dtype = dtype
        self.head_num = head_num
        self.head_dim = head_dim
        self.layer_num = layer_num
        self.device = device
        # page 0 is kept as a padding page
        self.kv_buffer = torch.zeros(
            (2, layer_num, size + page_size, head_num, head_dim),
            dtype=dtype,
            device=device,
        )
        self.free_pages: List[int] = list(range(1, size // page_size + 1))

    def alloc(self, need_size: int) -> Optional[List[int]]:
        num_pages = need_size // self.page_size
        if num_pages > len(self.free_pages):
            return None
        pages = self.free_pages[:num_pages]
        self.free_pages = self.free_pages[num_pages:]
        return [p * self.page_size for p in pages]

    def free(self, page_starts: List[int]) -> None:
        self.free_pages.extend(s // self.page_size for s in page_starts)
