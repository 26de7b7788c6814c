import logging
from typing import List, Optional

import torch

logger = logging.getLogger(__name__)


class MHATokenToKVPool:
    """Paged device KV pool. ``kv_buffer[layer]`` is laid out as [2, size, head_num, head_dim]."""

    def __init__(
        self,
        size: int,
        page_size: int,
        dtype: torch.dtype,
        head_num: int,
        head_dim: int,
        layer_num: int,
        device: str,
    ):
        self.size = size
        self.page_size = page_size
        self.dtype = dtype
        self.head_num = head_num
        self.head_dim = head_dim
        self.layer_num = layer_num
        self.device = device
        self.kv_buffer: List[torch.Tensor] = [
            torch.zeros((2, size + page_size, head_num, head_dim), dtype=dtype, device=device)
            for _ in range(layer_num)
        ]
        self.free_pages: List[int] = list(range(1, size // page_size + 1))
        logger.info("Device KV pool: %d pages, %d layers", len(self.free_pages), layer_num)

    def page_slice(self, layer_id: int, page: int) -> torch.Tensor:
        start = page * self.page_size
        return self.kv_buffer[layer_id][:, start : start + self.page_size]

    def alloc_pages(self, num_pages: int) -> Optional[List[int]]:
        if num_pages > len(self.free_pages):
            return None
        pages = self.free_pages[:num_pages]
        del self.free_pages[:num_pages]
        return pages

    def free(self, pages: List[int]) -> None:
        self.free_pages.extend(pages)
