import abc
import logging
import threading
from typing import Optional

import torch

from hicache.constants import DEFAULT_HOST_TO_DEVICE_RATIO, VALID_LAYOUTS
from hicache.transfer_utils import transfer_kv_direct

logger = logging.getLogger(__name__)


class HostKVCache(abc.ABC):
    def __init__(
        self,
        device_pool,
        host_to_device_ratio: float = DEFAULT_HOST_TO_DEVICE_RATIO,
        page_size: int = 64,
        layout: str = "layer_first",
        pin_memory: bool = True,
    ):
        if layout not in VALID_LAYOUTS:
            raise ValueError(f"Unsupported host layout: {layout}")
        self.device_pool = device_pool
        self.page_size = page_size
        self.layout = layout
        self.dtype = device_pool.store_dtype
        self.layer_num = device_pool.layer_num
        size = int(device_pool.size * host_to_device_ratio)
        self.size = size - size % page_size
        self.lock = threading.RLock()
        self.free_slots = torch.arange(self.size, dtype=torch.int64)
        self.kv_buffer = self.init_kv_buffer(pin_memory)
        logger.info("Allocated host KV cache: %d tokens, layout=%s", self.size, layout)

    @abc.abstractmethod
    def init_kv_buffer(self, pin_memory: bool) -> torch.Tensor:
        ...

    def alloc(self, need_size: int) -> Optional[torch.Tensor]:
        with self.lock:
            if need_size > self.free_slots.numel():
                return None
            select = self.free_slots[:need_size]
            self.free_slots = self.free_slots[need_size:]
            return select

    def free(self, indices: torch.Tensor) -> int:
        with self.lock:
            self.free_slots = torch.cat([self.free_slots, indices])
        return indices.numel()


class MHATokenToKVPoolHost(HostKVCache):
    def init_kv_buffer(self, pin_memory: bool) -> torch.Tensor:
        head_num = self.device_pool.head_num
        head_dim = self.device_pool.head_dim
        if self.layout == "layer_first":
            dims = (2, self.layer_num, self.size, head_num, head_dim)
        else:
            dims = (2, self.size, self.layer_num, head_num, head_dim)
        return torch.empty(dims, dtype=self.dtype, device="cpu", pin_memory=pin_memory)

    def layer_view(self, kv: int, layer_id: int) -> torch.Tensor:
        if self.layout == "layer_first":
            return self.kv_buffer[kv, layer_id]
        return self.kv_buffer[kv, :, layer_id]

    def backup_from_device_all_layer(
        self, device_pool, host_indices, device_indices, io_backend: str
    ) -> None:
        if io_backend != "direct":
            raise ValueError(f"Unsupported io backend: {io_backend}")
        for layer_id in range(self.layer_num):
            transfer_kv_direct(
                src_layers=[device_pool.k_buffer[layer_id], device_pool.v_buffer[layer_id]],
                dst_layers=[self.layer_view(0, layer_id), self.layer_view(1, layer_id)],
                src_indices=device_indices,
                dst_indices=host_indices,
                page_size=self.page_size,
            )

    def get_flat_data_page(self, index: int) -> torch.Tensor:
        if self.layout == "layer_first":
            return self.kv_buffer[:, :, index : index + self.page_size].flatten()
        return self.kv_buffer[:, index : index + self.page_size].flatten()
