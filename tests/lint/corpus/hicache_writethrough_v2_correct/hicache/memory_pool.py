from typing import Optional

import torch


class MHATokenToKVPool:
    """Device KV pool laid out as [2, layer_num, size, head_num, head_dim]."""

    def __init__(self, size, page_size, dtype, head_num, head_dim, layer_num, device):
        self.size = size
        self.page_size = page_size
        self.store_dtype = dtype
        self.head_num = head_num
        self.head_dim = head_dim
        self.layer_num = layer_num
        self.device = device
        self.kv_buffer = torch.zeros(
            (2, layer_num, size + page_size, head_num, head_dim), dtype=dtype, device=device
        )

    def set_kv_buffer(self, layer_id: int, loc: torch.Tensor, cache_k, cache_v) -> None:
        # called by the attention backend on the forward stream
        self.kv_buffer[0, layer_id, loc] = cache_k.to(self.store_dtype)
        self.kv_buffer[1, layer_id, loc] = cache_v.to(self.store_dtype)


class PagedTokenToKVPoolAllocator:
    """Hands out page-aligned token slots; the index tensors live on the host."""

    def __init__(self, size: int, page_size: int, kvcache: MHATokenToKVPool):
        self.page_size = page_size
        self._kvcache = kvcache
        self.free_pages = torch.arange(1, size // page_size + 1, dtype=torch.int64)

    def get_kvcache(self) -> MHATokenToKVPool:
        return self._kvcache

    def alloc(self, need_size: int) -> Optional[torch.Tensor]:
        num_pages = need_size // self.page_size
        if num_pages > len(self.free_pages):
            return None
        pages, self.free_pages = self.free_pages[:num_pages], self.free_pages[num_pages:]
        offsets = torch.arange(self.page_size, dtype=torch.int64)
        return (pages[:, None] * self.page_size + offsets[None, :]).reshape(-1)

    def free(self, free_index: torch.Tensor) -> None:
        pages = free_index[:: self.page_size] // self.page_size
        self.free_pages = torch.cat((self.free_pages, pages))
