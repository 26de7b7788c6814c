import logging
import threading
from typing import Optional

import torch

from sgl_hicache.constants import IO_BACKEND_DIRECT
from sgl_hicache.kv_transfer import transfer_kv_direct

logger = logging.getLogger(__name__)


class MHATokenToKVPoolHost:
    def __init__(
        self,
        device_pool,
        host_to_device_ratio: float,
        page_size: int,
        pin_memory: bool = True,
    ):
        self.device_pool = device_pool
        self.page_size = page_size
        self.layer_num = device_pool.layer_num
        self.dtype = device_pool.store_dtype
        size = int(device_pool.size * host_to_device_ratio)
        self.size = size - size % page_size
        shape = (self.layer_num, self.size, device_pool.head_num, device_pool.head_dim)
        self.k_buffer = torch.empty(shape, dtype=self.dtype, pin_memory=pin_memory)
        self.v_buffer = torch.empty(shape, dtype=self.dtype, pin_memory=pin_memory)
        self.lock = threading.RLock()
        self.free_slots = torch.arange(self.size, dtype=torch.int64)
        logger.info(
            "Allocated host KV pool: %d tokens, %.2f GB",
            self.size,
            2 * self.k_buffer.numel() * self.k_buffer.element_size() / 1e9,
        )

    def alloc(self, need_size: int) -> Optional[torch.Tensor]:
        with self.lock:
            if need_size > len(self.free_slots):
                return None
            select = self.free_slots[:need_size]
            self.free_slots = self.free_slots[need_size:]
            return select

    def free(self, indices: torch.Tensor) -> int:
        with self.lock:
            self.free_slots = torch.cat([self.free_slots, indices])
        return len(indices)

    def _layers(self, buf: torch.Tensor):
        return [buf[i] for i in range(self.layer_num)]

    def backup_from_device_all_layer(
        self, device_pool, host_indices, device_indices, io_backend: str
    ) -> None:
        if io_backend != IO_BACKEND_DIRECT:
            raise ValueError(f"Unsupported io backend: {io_backend}")
        for dev, host in ((device_pool.k_buffer, self.k_buffer), (device_pool.v_buffer, self.v_buffer)):
            transfer_kv_direct(
                dev, self._layers(host), device_indices, host_indices, self.page_size
            )

    def load_to_device_all_layer(
        self, device_pool, host_indices, device_indices, io_backend: str
    ) -> None:
        if io_backend != IO_BACKEND_DIRECT:
            raise ValueError(f"Unsupported io backend: {io_backend}")
        for dev, host in ((device_pool.k_buffer, self.k_buffer), (device_pool.v_buffer, self.v_buffer)):
            transfer_kv_direct(
                self._layers(host), dev, host_indices, device_indices, self.page_size
            )
