from __future__ import annotations

import logging
from typing import Iterator, Tuple

import torch

from mem_cache.device_pool import MHATokenToKVPool

logger = logging.getLogger(__name__)


def _runs(host_indices: torch.Tensor, device_indices: torch.Tensor) -> Iterator[Tuple[int, int, int]]:
    h_list, d_list = host_indices.tolist(), device_indices.tolist()
    i = 0
    while i < len(h_list):
        j = i + 1
        while (
            j < len(h_list)
            and h_list[j] == h_list[j - 1] + 1
            and d_list[j] == d_list[j - 1] + 1
        ):
            j += 1
        yield h_list[i], d_list[i], j - i
        i = j


class MHATokenToKVPoolHost:
    layout = "layer_first"

    def __init__(self, device_pool: MHATokenToKVPool, host_size: int):
        self.size = host_size
        self.layer_num = device_pool.layer_num
        shape = (self.layer_num, host_size, device_pool.head_num, device_pool.head_dim)
        self.k_buffer = torch.empty(shape, dtype=device_pool.dtype, pin_memory=True)
        self.v_buffer = torch.empty(shape, dtype=device_pool.dtype, pin_memory=True)

    def load_to_device_per_layer(
        self,
        device_pool: MHATokenToKVPool,
        host_indices: torch.Tensor,
        device_indices: torch.Tensor,
        layer_id: int,
    ) -> None:
        dst_k = device_pool.k_buffer[layer_id]
        dst_v = device_pool.v_buffer[layer_id]
        for h0, d0, n in _runs(host_indices, device_indices):
            dst_k[d0 : d0 + n].copy_(self.k_buffer[layer_id, h0 : h0 + n], non_blocking=True)
            dst_v[d0 : d0 + n].copy_(self.v_buffer[layer_id, h0 : h0 + n], non_blocking=True)
