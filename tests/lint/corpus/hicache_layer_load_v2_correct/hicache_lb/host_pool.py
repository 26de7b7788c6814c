from __future__ import annotations

import logging

import torch

from hicache_lb.constants import DEFAULT_PAGE_SIZE

logger = logging.getLogger(__name__)


class MHATokenToKVPoolHost:
    def __init__(self, layer_num: int, size: int, head_num: int, head_dim: int,
                 dtype: torch.dtype, page_size: int = DEFAULT_PAGE_SIZE):
        self.layer_num = layer_num
        self.size = size
        self.page_size = page_size
        shape = (layer_num, size, head_num, head_dim)
        self.k_buffer = torch.empty(shape, dtype=dtype, pin_memory=True)
        self.v_buffer = torch.empty(shape, dtype=dtype, pin_memory=True)
        logger.info("HiCache host pool: %d layers x %d tokens", layer_num, size)

    def load_to_device_per_layer(
        self,
        device_pool,
        host_indices: torch.Tensor,
        device_indices: torch.Tensor,
        layer_id: int,
    ) -> None:
        ps = self.page_size
        dev_k = device_pool.k_buffer[layer_id]
        dev_v = device_pool.v_buffer[layer_id]
        for h, d in zip(host_indices[::ps].tolist(), device_indices[::ps].tolist()):
            dev_k[d : d + ps].copy_(self.k_buffer[layer_id, h : h + ps], non_blocking=True)
            dev_v[d : d + ps].copy_(self.v_buffer[layer_id, h : h + ps], non_blocking=True)
