import logging

import torch

logger = logging.getLogger(__name__)


class MHATokenToKVPoolHost:
    def __init__(self, device_pool, host_to_device_ratio: float, pin_memory: bool = True):
        self.device_pool = device_pool
        self.layer_num = device_pool.layer_num
        self.head_num = device_pool.head_num
        self.head_dim = device_pool.head_dim
        self.dtype = device_pool.store_dtype
        self.size = int(device_pool.size * host_to_device_ratio)
        shape = (2, self.layer_num, self.size, self.head_num, self.head_dim)
        self.kv_buffer = torch.empty(shape, dtype=self.dtype, device="cpu", pin_memory=pin_memory)
        logger.info("Allocated host KV cache: %.2f GB", self.kv_buffer.nbytes / 1e9)
        self.free_cursor = 0

    def alloc(self, need_size: int) -> int:
        if self.free_cursor + need_size > self.size:
            raise RuntimeError("host KV pool exhausted")
        start = self.free_cursor
        self.free_cursor += need_size
        return start

    def backup_from_device_all_layer(self, device_pool, host_start: int, device_start: int, n: int):
        for layer_id in range(self.layer_num):
            k_src = device_pool.k_buffer[layer_id].narrow(0, device_start, n)
            v_src = device_pool.v_buffer[layer_id].narrow(0, device_start, n)
            self.kv_buffer[0, layer_id].narrow(0, host_start, n).copy_(k_src, non_blocking=True)
            self.kv_buffer[1, layer_id].narrow(0, host_start, n).copy_(v_src, non_blocking=True)
