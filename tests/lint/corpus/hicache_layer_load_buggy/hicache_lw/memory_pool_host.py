from __future__ import annotations

import logging

import torch

from .memory_pool import MHATokenToKVPool
from .utils import page_pairs

logger = logging.getLogger(__name__)


class MHATokenToKVPoolHost:
    def __init__(self, device_pool: MHATokenToKVPool, host_size: int, page_size: int):
        self.page_size = page_size
        self.layer_num = device_pool.layer_num
        self.size = host_size - host_size % page_size
        _, _, _, head_num, head_dim = device_pool.kv_buffer.shape
        self.kv_buffer = torch.empty(
            (2, self.layer_num, self.size, head_num, head_dim),
            dtype=device_pool.dtype, device="cpu", pin_memory=True,
        )

    def load_to_device_per_layer(
        self,
        device_pool: MHATokenToKVPool,
        host_indices: torch.Tensor,
        device_indices: torch.Tensor,
        layer_id: int,
    ) -> None:
        ps = self.page_size
        for h, d in page_pairs(host_indices, device_indices, ps):
            device_pool.kv_buffer[:, layer_id, d : d + ps].copy_(
                self.kv_buffer[:, layer_id, h : h + ps], non_blocking=True
            )

    def load_to_device_all_layer(
        self,
        device_pool: MHATokenToKVPool,
        host_indices: torch.Tensor,
        device_indices: torch.Tensor,
    ) -> None:
        ps = self.page_size
        for h, d in page_pairs(host_indices, device_indices, ps):
            # expect: KVG004
            device_pool.kv_buffer[:, :, d : d + ps].copy_(
                self.kv_buffer[:, :, h : h + ps], non_blocking=True
            )
