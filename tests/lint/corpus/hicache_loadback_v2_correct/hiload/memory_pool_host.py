import logging

import torch

from hiload.constants import DEFAULT_PAGE_SIZE

logger = logging.getLogger(__name__)


class MHATokenToKVPoolHost:
    def __init__(self, device_pool, size: int, page_size: int = DEFAULT_PAGE_SIZE):
        self.size = size - size % page_size
        self.page_size = page_size
        self.layer_num = device_pool.layer_num
        shape = (self.layer_num, self.size, device_pool.head_num, device_pool.head_dim)
        self.k_buffer = torch.empty(shape, dtype=device_pool.dtype, pin_memory=True)
        self.v_buffer = torch.empty(shape, dtype=device_pool.dtype, pin_memory=True)
        logger.info("Host KV pool: %d tokens x %d layers", self.size, self.layer_num)

    def load_to_device_per_layer(
        self, device_pool, host_indices: torch.Tensor, device_indices: torch.Tensor, layer_id: int
    ) -> None:
        page = self.page_size
        host_pages = host_indices[::page].tolist()
        device_pages = device_indices[::page].tolist()
        pairs = (
            (device_pool.k_buffer[layer_id], self.k_buffer[layer_id]),
            (device_pool.v_buffer[layer_id], self.v_buffer[layer_id]),
        )
        for dst, src in pairs:
            for h, d in zip(host_pages, device_pages):
                dst[d : d + page].copy_(src[h : h + page], non_blocking=True)
