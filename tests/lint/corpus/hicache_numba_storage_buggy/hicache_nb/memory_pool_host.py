import logging
import threading
from typing import List, Optional

import numpy as np
from numba import cuda

logger = logging.getLogger(__name__)


class MHATokenToKVPoolHost:
    """Pinned host pool in page_first layout: [num_pages, layer, k/v, page_size, heads, dim]."""

    def __init__(self, device_pool, num_pages: int, page_size: int):
        self.page_size = page_size
        self.layer_num = device_pool.layer_num
        self.num_pages = num_pages
        shape = (num_pages, self.layer_num, 2, page_size, device_pool.head_num, device_pool.head_dim)
        self.kv_buffer = cuda.pinned_array(shape, dtype=np.float16)
        logger.info("Host KV pool: %d pages, %.2f GB", num_pages, self.kv_buffer.nbytes / 1e9)
        self._free = list(range(num_pages))
        self._lock = threading.Lock()

    def alloc_pages(self, n: int) -> Optional[List[int]]:
        with self._lock:
            if n > len(self._free):
                return None
            pages, self._free = self._free[:n], self._free[n:]
        return pages

    def free_pages(self, pages: List[int]) -> None:
        with self._lock:
            self._free.extend(pages)

    def get_page_buffer(self, page: int) -> np.ndarray:
        return self.kv_buffer[page]

    def backup_from_device_all_layer(
        self, device_pool, host_pages: List[int], device_pages: List[int], stream
    ) -> None:
        ps = self.page_size
        for layer_id in range(self.layer_num):
            d_k = cuda.as_cuda_array(device_pool.k_buffer[layer_id])
            d_v = cuda.as_cuda_array(device_pool.v_buffer[layer_id])
            for hp, dp in zip(host_pages, device_pages):
                d_k[dp * ps : (dp + 1) * ps].copy_to_host(self.kv_buffer[hp, layer_id, 0], stream=stream)
                d_v[dp * ps : (dp + 1) * ps].copy_to_host(self.kv_buffer[hp, layer_id, 1], stream=stream)

    def load_to_device_all_layer(
        self, device_pool, host_pages: List[int], device_pages: List[int], stream
    ) -> None:
        ps = self.page_size
        for layer_id in range(self.layer_num):
            d_kv = (
                cuda.as_cuda_array(device_pool.k_buffer[layer_id]),
                cuda.as_cuda_array(device_pool.v_buffer[layer_id]),
            )
            for hp, dp in zip(host_pages, device_pages):
                for kv_idx in range(2):
                    # expect: KVG004
                    d_kv[kv_idx][dp * ps : (dp + 1) * ps].copy_to_device(self.kv_buffer[hp, layer_id, kv_idx], stream=stream)
