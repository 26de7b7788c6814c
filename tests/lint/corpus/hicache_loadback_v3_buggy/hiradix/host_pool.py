from __future__ import annotations

import logging

import torch

from hiradix.constants import LAYOUT_LAYER_FIRST, LAYOUT_PAGE_FIRST

logger = logging.getLogger(__name__)


class MHATokenToKVPoolHost:
    def __init__(self, device_pool, size: int, layout: str = LAYOUT_LAYER_FIRST):
        self.layer_num = device_pool.layer_num
        self.layout = layout
        self.size = size
        shape_tail = (device_pool.head_num, device_pool.head_dim)
        if layout == LAYOUT_LAYER_FIRST:
            dims = (2, self.layer_num, size) + shape_tail
        elif layout == LAYOUT_PAGE_FIRST:
            dims = (2, size, self.layer_num) + shape_tail
        else:
            raise ValueError(f"Unsupported layout {layout}")
        self.kv_buffer = torch.empty(
            dims, dtype=device_pool.store_dtype, device="cpu", pin_memory=True
        )

    def _host_view(self, kv_idx: int, layer_id: int, start: int, n: int) -> torch.Tensor:
        if self.layout == LAYOUT_LAYER_FIRST:
            return self.kv_buffer[kv_idx, layer_id, start : start + n]
        return self.kv_buffer[kv_idx, start : start + n, layer_id]

    def load_to_device_per_layer(
        self, device_pool, runs: list[tuple[int, int, int]], layer_id: int
    ) -> None:
        for kv_idx, layers in enumerate((device_pool.k_buffer, device_pool.v_buffer)):
            dst_layer = layers[layer_id]
            for h, d, n in runs:
                # expect: KVG004
                dst_layer[d : d + n].copy_(
                    self._host_view(kv_idx, layer_id, h, n), non_blocking=True
                )

    def load_to_device_all_layer(self, device_pool, runs: list[tuple[int, int, int]]) -> None:
        for layer_id in range(self.layer_num):
            self.load_to_device_per_layer(device_pool, runs, layer_id)
