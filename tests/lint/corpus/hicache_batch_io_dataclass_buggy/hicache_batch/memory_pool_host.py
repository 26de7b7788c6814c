import threading
from typing import List, Optional

import torch

from hicache_batch.batch_io import BatchCopyOptions, batch_copy_pages


class MHATokenToKVPool:
    def __init__(self, size: int, page_size: int, head_num: int, head_dim: int, layer_num: int,
                 dtype: torch.dtype = torch.bfloat16):
        self.size, self.page_size, self.layer_num, self.dtype = size, page_size, layer_num, dtype
        self.head_num, self.head_dim = head_num, head_dim
        # [2 (k/v), layer_num, size + page_size, head_num, head_dim]; slot 0 page is padding
        self.kv_buffer = torch.zeros((2, layer_num, size + page_size, head_num, head_dim),
                                     dtype=dtype, device="cuda")
        self.token_bytes = head_num * head_dim * self.kv_buffer.element_size()


class MHATokenToKVPoolHost:
    def __init__(self, device_pool: MHATokenToKVPool, host_size: int):
        self.page_size = device_pool.page_size
        self.layer_num = device_pool.layer_num
        self.token_bytes = device_pool.token_bytes
        self.kv_buffer = torch.empty((2, device_pool.layer_num, host_size, device_pool.head_num,
                                      device_pool.head_dim), dtype=device_pool.dtype, pin_memory=True)
        self.free_pages: List[int] = list(range(0, host_size, self.page_size))
        self.lock = threading.Lock()
        self.copy_options = BatchCopyOptions()

    def alloc(self, num_tokens: int) -> Optional[List[int]]:
        n = num_tokens // self.page_size
        with self.lock:
            if n > len(self.free_pages):
                return None
            pages, self.free_pages = self.free_pages[:n], self.free_pages[n:]
        return pages

    def free(self, pages: List[int]) -> None:
        with self.lock:
            self.free_pages.extend(pages)

    def _page_ptrs(self, buf: torch.Tensor, kv: int, layer_id: int, pages: List[int]) -> List[int]:
        base = buf[kv, layer_id].data_ptr()
        return [base + p * self.token_bytes for p in pages]

    def backup_from_device_all_layer(self, device_pool: MHATokenToKVPool, host_pages: List[int],
                                     device_pages: List[int], stream: torch.cuda.Stream) -> None:
        dsts, srcs = [], []
        for layer_id in range(self.layer_num):
            for kv in (0, 1):
                dsts += self._page_ptrs(self.kv_buffer, kv, layer_id, host_pages)
                srcs += self._page_ptrs(device_pool.kv_buffer, kv, layer_id, device_pages)
        batch_copy_pages(dsts, srcs, self.page_size * self.token_bytes, stream.cuda_stream,
                         self.copy_options)

    def load_to_device_per_layer(self, device_pool: MHATokenToKVPool, host_pages: List[int],
                                 device_pages: List[int], layer_id: int,
                                 stream: torch.cuda.Stream) -> None:
        dsts, srcs = [], []
        for kv in (0, 1):
            dsts += self._page_ptrs(device_pool.kv_buffer, kv, layer_id, device_pages)
            srcs += self._page_ptrs(self.kv_buffer, kv, layer_id, host_pages)
        batch_copy_pages(dsts, srcs, self.page_size * self.token_bytes, stream.cuda_stream,
                         self.copy_options)
