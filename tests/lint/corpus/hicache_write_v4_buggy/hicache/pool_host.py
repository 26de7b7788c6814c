from __future__ import annotations

import logging
import threading

import psutil
import torch

from hicache.constants import (
    DEFAULT_HOST_TO_DEVICE_RATIO,
    LAYOUT_LAYER_FIRST,
    LAYOUT_PAGE_FIRST,
    SUPPORTED_LAYOUTS,
)
from hicache.utils import page_runs

logger = logging.getLogger(__name__)


class MHATokenToKVPoolHost:
    """Pinned host mirror of the device MHA KV pool."""

    def __init__(
        self,
        device_pool,
        host_to_device_ratio: float = DEFAULT_HOST_TO_DEVICE_RATIO,
        page_size: int = 64,
        layout: str = LAYOUT_LAYER_FIRST,
        pin_memory: bool = True,
    ):
        if layout not in SUPPORTED_LAYOUTS:
            raise ValueError(f"Unsupported host memory layout: {layout}")
        self.device_pool = device_pool
        self.page_size = page_size
        self.layout = layout
        self.pin_memory = pin_memory
        self.dtype = device_pool.store_dtype
        self.layer_num = device_pool.layer_num
        self.head_num = device_pool.head_num
        self.head_dim = device_pool.head_dim
        self.size = int(device_pool.size * host_to_device_ratio)
        self.size = self.size - self.size % page_size

        requested = self.size * self.size_per_token()
        available = psutil.virtual_memory().available - (10 << 30)
        if requested > available:
            raise ValueError(
                f"Not enough host memory: requested {requested / 1e9:.2f} GB, "
                f"available {available / 1e9:.2f} GB"
            )
        logger.info("Allocating %.2f GB host memory for HiCache.", requested / 1e9)
        self.kv_buffer = self.init_kv_buffer()
        self.lock = threading.RLock()
        self.free_slots = torch.arange(self.size, dtype=torch.int64)

    def size_per_token(self) -> int:
        return self.head_num * self.head_dim * self.layer_num * 2 * self.dtype.itemsize

    def init_kv_buffer(self) -> torch.Tensor:
        if self.layout == LAYOUT_LAYER_FIRST:
            dims = (2, self.layer_num, self.size, self.head_num, self.head_dim)
        else:
            dims = (2, self.size, self.layer_num, self.head_num, self.head_dim)
        return torch.empty(dims, dtype=self.dtype, device="cpu", pin_memory=self.pin_memory)

    def alloc(self, need_size: int):
        with self.lock:
            if need_size > len(self.free_slots):
                return None
            selected = self.free_slots[:need_size]
            self.free_slots = self.free_slots[need_size:]
            return selected

    def free(self, indices: torch.Tensor) -> None:
        with self.lock:
            self.free_slots = torch.cat([self.free_slots, indices])

    def backup_from_device_all_layer(
        self, device_pool, host_indices: torch.Tensor, device_indices: torch.Tensor
    ) -> None:
        runs = page_runs(host_indices, device_indices)
        device_buffers = (device_pool.k_buffer, device_pool.v_buffer)
        for kv_idx, layers in enumerate(device_buffers):
            for layer_id in range(self.layer_num):
                src_layer = layers[layer_id]
                for h, d, n in runs:
                    if self.layout == LAYOUT_LAYER_FIRST:
                        # expect: KVG001
                        self.kv_buffer[kv_idx, layer_id, h : h + n].copy_(
                            src_layer[d : d + n], non_blocking=True
                        )
                    elif self.layout == LAYOUT_PAGE_FIRST:
                        # expect: KVG001
                        self.kv_buffer[kv_idx, h : h + n, layer_id].copy_(
                            src_layer[d : d + n], non_blocking=True
                        )
