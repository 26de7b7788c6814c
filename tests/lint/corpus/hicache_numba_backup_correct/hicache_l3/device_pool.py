import logging

import torch
from numba import cuda

logger = logging.getLogger(__name__)


class PageFirstDeviceKVPool:
    """Device KV pool in page_first layout: [size, layer_num, 2, head_num * head_dim]."""

    def __init__(self, size: int, page_size: int, layer_num: int, head_num: int,
                 head_dim: int, dtype: torch.dtype = torch.float16, device: str = "cuda:0"):
        self.size = size
        self.page_size = page_size
        self.layer_num = layer_num
        self.device = torch.device(device)
        self.kv_buffer = torch.zeros(
            (size, layer_num, 2, head_num * head_dim), dtype=dtype, device=self.device
        )
        # numba view over the same memory, used by the storage backup thread
        self.kv_view = cuda.as_cuda_array(self.kv_buffer)
        logger.info("Device KV pool: %d tokens, page_size=%d", size, page_size)
