import logging
from typing import List, Optional, Tuple

import torch

from .constants import HICACHE_IO_BACKENDS, HICACHE_LAYOUTS
from .memory_pool import MHATokenToKVPool

logger = logging.getLogger(__name__)


class MHATokenToKVPoolHost:
    def __init__(
        self,
        device_pool: MHATokenToKVPool,
        host_to_device_ratio: float,
        page_size: int,
        layout: str = "layer_first",
    ):
        assert layout in HICACHE_LAYOUTS, f"unsupported host layout {layout}"
        self.layout = layout
        self.page_size = page_size
        self.layer_num = device_pool.layer_num
        self.size = int(device_pool.size * host_to_device_ratio) // page_size * page_size
        self.kv_buffer = torch.empty(
            (2, self.layer_num, self.size, device_pool.head_num, device_pool.head_dim),
            dtype=device_pool.store_dtype,
            device="cpu",
            pin_memory=True,
        )
        self.free_slots = torch.arange(self.size, dtype=torch.int64)
        logger.info("Allocated %.2f GB of host KV cache", self.kv_buffer.nbytes / 1e9)

    def alloc(self, need_size: int) -> Optional[torch.Tensor]:
        if need_size > len(self.free_slots):
            return None
        select_index, self.free_slots = self.free_slots[:need_size], self.free_slots[need_size:]
        return select_index

    def free(self, indices: torch.Tensor) -> int:
        self.free_slots = torch.cat([self.free_slots, indices])
        return len(indices)

    def _page_pairs(self, host_indices, device_indices) -> List[Tuple[int, int]]:
        step = self.page_size
        return list(zip(host_indices[::step].tolist(), device_indices[::step].tolist()))

    def backup_from_device_all_layer(
        self, device_pool: MHATokenToKVPool, host_indices, device_indices, io_backend: str
    ) -> None:
        assert io_backend in HICACHE_IO_BACKENDS
        p = self.page_size
        pairs = self._page_pairs(host_indices, device_indices)
        for layer_id in range(self.layer_num):
            src = device_pool.kv_buffer[:, layer_id]
            for h, d in pairs:
                self.kv_buffer[:, layer_id, h : h + p].copy_(src[:, d : d + p], non_blocking=True)
