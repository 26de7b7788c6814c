import logging
from typing import List, Optional

import torch

logger = logging.getLogger(__name__)


class DeviceKVPool:
    """Per-layer fused KV buffers living on the accelerator, shape [2, size, head, dim]."""

    def __init__(self, size: int, layer_num: int, head_num: int, head_dim: int,
                 dtype: torch.dtype, device: str):
        self.size = size
        self.layer_num = layer_num
        self.head_num = head_num
        self.head_dim = head_dim
        self.dtype = dtype
        self.device = device
        self.kv_buffer: List[torch.Tensor] = [
            torch.zeros((2, size, head_num, head_dim), dtype=dtype, device=device)
            for _ in range(layer_num)
        ]
        logger.info("Device KV pool: %d tokens x %d layers", size, layer_num)


class TokenToKVPoolAllocator:
    """Hands out page-aligned token slots; the free list is kept on the host."""

    def __init__(self, kvcache: DeviceKVPool, page_size: int):
        self._kvcache = kvcache
        self.page_size = page_size
        self.free_pages = torch.arange(1, kvcache.size // page_size, dtype=torch.int64)

    def get_kvcache(self) -> DeviceKVPool:
        return self._kvcache

    def alloc(self, need_size: int) -> Optional[torch.Tensor]:
        num_pages = need_size // self.page_size
        if num_pages > len(self.free_pages):
            return None
        pages = self.free_pages[:num_pages]
        self.free_pages = self.free_pages[num_pages:]
        offsets = torch.arange(self.page_size, dtype=torch.int64)
        return (pages[:, None] * self.page_size + offsets[None, :]).reshape(-1)

    def free(self, indices: torch.Tensor) -> None:
        if indices.numel() == 0:
            return
        pages = torch.unique(indices // self.page_size)
        self.free_pages = torch.cat((self.free_pages, pages))
