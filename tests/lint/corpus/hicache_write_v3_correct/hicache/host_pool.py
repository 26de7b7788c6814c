import logging
import threading
from typing import List, Optional

import torch

from hicache.constants import HOST_LAYOUTS
from hicache.memory_pool import DeviceKVPool

logger = logging.getLogger(__name__)


class HostKVCache:
    """Pinned host mirror of the device pool, page_first layout:
    [num_pages, layer_num, 2, page_size, head_num, head_dim]."""

    def __init__(self, device_pool: DeviceKVPool, host_to_device_ratio: float,
                 page_size: int, layout: str = "page_first"):
        assert layout in HOST_LAYOUTS, layout
        self.layout = layout
        self.page_size = page_size
        self.layer_num = device_pool.layer_num
        self.size = int(device_pool.size * host_to_device_ratio) // page_size * page_size
        self.num_pages = self.size // page_size
        self.kv_buffer = torch.empty(
            (self.num_pages, self.layer_num, 2, page_size,
             device_pool.head_num, device_pool.head_dim),
            dtype=device_pool.dtype,
            device="cpu",
            pin_memory=True,
        )
        self.lock = threading.RLock()
        self.free_pages = list(range(self.num_pages))

    def alloc(self, need_size: int) -> Optional[torch.Tensor]:
        with self.lock:
            num_pages = need_size // self.page_size
            if num_pages > len(self.free_pages):
                return None
            pages, self.free_pages = self.free_pages[:num_pages], self.free_pages[num_pages:]
        base = torch.tensor(pages, dtype=torch.int64) * self.page_size
        return (base[:, None] + torch.arange(self.page_size)[None, :]).reshape(-1)

    def free(self, indices: torch.Tensor) -> None:
        with self.lock:
            self.free_pages.extend((indices[:: self.page_size] // self.page_size).tolist())

    def _page_pairs(self, host_indices: torch.Tensor,
                    device_indices: torch.Tensor) -> List[tuple]:
        host_pages = (host_indices[:: self.page_size] // self.page_size).tolist()
        device_starts = device_indices[:: self.page_size].tolist()
        return list(zip(host_pages, device_starts))

    def backup_from_device_all_layer(self, device_pool: DeviceKVPool,
                                     host_indices: torch.Tensor,
                                     device_indices: torch.Tensor,
                                     io_backend: str) -> None:
        if io_backend != "direct":
            raise ValueError(f"Unsupported io backend {io_backend!r}")
        pairs = self._page_pairs(host_indices, device_indices)
        for layer_id in range(self.layer_num):
            src = device_pool.kv_buffer[layer_id]
            for host_page, dev_start in pairs:
                self.kv_buffer[host_page, layer_id].copy_(src[:, dev_start:dev_start + self.page_size], non_blocking=True)

    def load_to_device_per_layer(self, device_pool: DeviceKVPool,
                                 host_indices: torch.Tensor,
                                 device_indices: torch.Tensor,
                                 layer_id: int, io_backend: str) -> None:
        if io_backend != "direct":
            raise ValueError(f"Unsupported io backend {io_backend!r}")
        dst = device_pool.kv_buffer[layer_id]
        for host_page, dev_start in self._page_pairs(host_indices, device_indices):
            dst[:, dev_start:dev_start + self.page_size].copy_(
                self.kv_buffer[host_page, layer_id], non_blocking=True
            )
