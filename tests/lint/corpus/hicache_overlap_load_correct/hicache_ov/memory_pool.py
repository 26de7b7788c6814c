"""Token-to-KV pools: per-layer K/V buffers on the device, a layer-first pinned mirror on
the host, and a page allocator that hands out device pages from a host-side free list."""

from typing import List, Optional

import torch


class MHATokenToKVPool:
    def __init__(self, size: int, page_size: int, dtype: torch.dtype, head_num: int,
                 head_dim: int, layer_num: int, device: str = "cuda"):
        self.size = size
        self.page_size = page_size
        self.dtype = dtype
        self.head_num = head_num
        self.head_dim = head_dim
        self.layer_num = layer_num
        self.device = device
        # the extra page is the padded slot 0 used by dummy tokens
        self.k_buffer = [torch.zeros((size + page_size, head_num, head_dim), dtype=dtype,
                                     device=device) for _ in range(layer_num)]
        self.v_buffer = [torch.zeros((size + page_size, head_num, head_dim), dtype=dtype,
                                     device=device) for _ in range(layer_num)]
        self.layer_transfer_counter = None

    def register_layer_transfer_counter(self, counter) -> None:
        self.layer_transfer_counter = counter

    def get_kv_buffer(self, layer_id: int):
        if self.layer_transfer_counter is not None:
            self.layer_transfer_counter.wait_until(layer_id)
        return self.k_buffer[layer_id], self.v_buffer[layer_id]


class PagedTokenToKVPoolAllocator:
    def __init__(self, kvcache: MHATokenToKVPool):
        self._kvcache = kvcache
        self.page_size = kvcache.page_size
        self.free_pages: List[int] = list(range(kvcache.page_size, kvcache.size + 1, kvcache.page_size))

    def get_kvcache(self) -> MHATokenToKVPool:
        return self._kvcache

    def alloc(self, num_pages: int) -> Optional[List[int]]:
        if num_pages > len(self.free_pages):
            return None
        pages, self.free_pages = self.free_pages[:num_pages], self.free_pages[num_pages:]
        return pages

    def free(self, pages: List[int]) -> None:
        self.free_pages.extend(pages)


class MHATokenToKVPoolHost:
    def __init__(self, device_pool: MHATokenToKVPool, host_to_device_ratio: float):
        self.page_size = device_pool.page_size
        self.size = int(device_pool.size * host_to_device_ratio)
        shape = (device_pool.layer_num, self.size, device_pool.head_num, device_pool.head_dim)
        self.k_buffer = torch.empty(shape, dtype=device_pool.dtype, pin_memory=True)
        self.v_buffer = torch.empty(shape, dtype=device_pool.dtype, pin_memory=True)

    def _page_runs(self, host_pages: List[int], device_pages: List[int]):
        """Merge pages that are adjacent on both sides into (host, device, num_tokens) runs."""
        run = None
        for h, d in zip(host_pages, device_pages):
            if run is not None and run[0] + run[2] == h and run[1] + run[2] == d:
                run = (run[0], run[1], run[2] + self.page_size)
                continue
            if run is not None:
                yield run
            run = (h, d, self.page_size)
        if run is not None:
            yield run

    def load_to_device_per_layer(self, device_pool: MHATokenToKVPool, host_pages: List[int],
                                 device_pages: List[int], layer_id: int) -> None:
        k_dev, v_dev = device_pool.k_buffer[layer_id], device_pool.v_buffer[layer_id]
        for h, d, n in self._page_runs(host_pages, device_pages):
            k_dev[d:d + n].copy_(self.k_buffer[layer_id, h:h + n], non_blocking=True)
            v_dev[d:d + n].copy_(self.v_buffer[layer_id, h:h + n], non_blocking=True)
