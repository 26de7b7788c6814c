import logging
import threading
from typing import List, Optional

import numpy as np
from numba import cuda

logger = logging.getLogger(__name__)


class HostKVPool:
    """Pinned host mirror of the device KV pool, layout [layer, token, 2, head, dim]."""

    def __init__(self, layer_num: int, size: int, head_num: int, head_dim: int, dtype, page_size: int):
        self.layer_num = layer_num
        self.page_size = page_size
        self.size = size - size % page_size
        self.kv_buffer = cuda.pinned_array((layer_num, self.size, 2, head_num, head_dim), dtype=dtype)
        self._free_pages: List[int] = list(range(0, self.size, page_size))
        self._lock = threading.Lock()
        logger.info("Host KV pool: %d tokens, %.2f GB", self.size, self.kv_buffer.nbytes / 1e9)

    def alloc_pages(self, num_pages: int) -> Optional[np.ndarray]:
        with self._lock:
            if num_pages > len(self._free_pages):
                return None
            pages, self._free_pages = self._free_pages[:num_pages], self._free_pages[num_pages:]
        return np.asarray(pages, dtype=np.int64)

    def free_pages(self, pages: np.ndarray) -> None:
        with self._lock:
            self._free_pages.extend(int(p) for p in pages)
