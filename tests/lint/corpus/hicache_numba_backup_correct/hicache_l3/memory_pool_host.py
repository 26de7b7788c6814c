import threading
from typing import List, Optional

import numpy as np
from numba import cuda

from hicache_l3.device_pool import PageFirstDeviceKVPool


class HostKVCache:
    def __init__(self, device_pool: PageFirstDeviceKVPool, host_size: int, page_size: int):
        self.page_size = page_size
        self.size = host_size - host_size % page_size
        shape = (self.size,) + tuple(device_pool.kv_buffer.shape[1:])
        self.kv_buffer = cuda.pinned_array(shape, dtype=np.float16)
        self.lock = threading.Lock()
        self.free_slots: List[int] = list(range(0, self.size, page_size))

    def alloc(self, need_size: int) -> Optional[List[int]]:
        num_pages = need_size // self.page_size
        with self.lock:
            if num_pages > len(self.free_slots):
                return None
            slots, self.free_slots = self.free_slots[:num_pages], self.free_slots[num_pages:]
        return slots

    def free(self, page_starts: List[int]) -> None:
        with self.lock:
            self.free_slots.extend(page_starts)

    def get_flat_page(self, start: int) -> np.ndarray:
        return self.kv_buffer[start : start + self.page_size].reshape(-1)

    def backup_page_from_device(self, device_view, host_start: int, device_start: int,
                                stream) -> None:
        ps = self.page_size
        device_view[device_start : device_start + ps].copy_to_host(self.kv_buffer[host_start : host_start + ps], stream=stream)
