import logging
from typing import List, Optional, Tuple

import torch

from .constants import LAYOUT_LAYER_FIRST, SUPPORTED_LAYOUTS

logger = logging.getLogger(__name__)


class MHATokenToKVPoolHost:
    """Pinned host mirror of the device token-to-KV pool.

    Index tensors handed to this class are int64 CPU tensors whose length is
    a multiple of ``page_size``; each page is contiguous in both pools.
    """

    def __init__(
        self,
        device_pool,
        host_to_device_ratio: float,
        page_size: int,
        layout: str = LAYOUT_LAYER_FIRST,
    ):
        if layout not in SUPPORTED_LAYOUTS:
            raise ValueError(f"Unsupported host memory layout {layout!r}")
        self.device_pool = device_pool
        self.page_size = page_size
        self.layout = layout
        self.layer_num = device_pool.layer_num
        self.head_num = device_pool.head_num
        self.head_dim = device_pool.head_dim
        self.dtype = device_pool.store_dtype
        self.size = int(device_pool.size * host_to_device_ratio)
        self.size -= self.size % page_size
        self.kv_buffer = self._init_kv_buffer()
        self.free_slots = torch.arange(self.size, dtype=torch.int64)
        logger.info("Allocating %.2f GB host KV cache (%s)", self.kv_buffer.nbytes / 1e9, layout)

    def _init_kv_buffer(self) -> torch.Tensor:
        if self.layout == LAYOUT_LAYER_FIRST:
            dims = (2, self.layer_num, self.size, self.head_num, self.head_dim)
        else:
            dims = (2, self.size, self.layer_num, self.head_num, self.head_dim)
        return torch.empty(dims, dtype=self.dtype, device="cpu", pin_memory=True)

    def alloc(self, need_size: int) -> Optional[torch.Tensor]:
        if need_size > len(self.free_slots):
            return None
        select_index = self.free_slots[:need_size]
        self.free_slots = self.free_slots[need_size:]
        return select_index

    def _host_page(self, kv: int, layer_id: int, start: int) -> torch.Tensor:
        end = start + self.page_size
        if self.layout == LAYOUT_LAYER_FIRST:
            return self.kv_buffer[kv, layer_id, start:end]
        return self.kv_buffer[kv, start:end, layer_id]

    def _page_pairs(
        self, host_indices: torch.Tensor, device_indices: torch.Tensor
    ) -> List[Tuple[int, int]]:
        host_starts = host_indices[:: self.page_size].tolist()
        device_starts = device_indices[:: self.page_size].tolist()
        return list(zip(host_starts, device_starts))

    def backup_from_device_all_layer(
        self, host_indices: torch.Tensor, device_indices: torch.Tensor
    ) -> None:
        pairs = self._page_pairs(host_indices, device_indices)
        for layer_id in range(self.layer_num):
            k_dev, v_dev = self.device_pool.get_kv_buffer(layer_id)
            for kv, dev_buf in ((0, k_dev), (1, v_dev)):
                for h, d in pairs:
                    self._host_page(kv, layer_id, h).copy_(
                        dev_buf[d : d + self.page_size], non_blocking=True
                    )

    def load_to_device_per_layer(
        self, host_indices: torch.Tensor, device_indices: torch.Tensor, layer_id: int
    ) -> None:
        k_dev, v_dev = self.device_pool.get_kv_buffer(layer_id)
        for h, d in self._page_pairs(host_indices, device_indices):
            k_dev[d : d + self.page_size].copy_(
                self._host_page(0, layer_id, h), non_blocking=True
            )
            v_dev[d : d + self.page_size].copy_(
                self._host_page(1, layer_id, h), non_blocking=True
            )
