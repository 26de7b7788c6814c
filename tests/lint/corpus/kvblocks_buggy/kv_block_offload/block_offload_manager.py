# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
import logging
from typing import List

import torch
from cuda.bindings import driver

from .constants import D2H_SRC_ACCESS_ORDER, H2D_SRC_ACCESS_ORDER
from .cuda_utils import check_cu, create_copy_stream, create_event, make_memcpy_attributes, order_after, torch_current_cu_stream
from .host_block_pool import HostBlockPool

logger = logging.getLogger(__name__)


class KVBlockOffloadManager:
    """Moves whole KV blocks between the device block buffer and a pinned host pool."""

    def __init__(self, memory_buffer: torch.Tensor, host_pool: HostBlockPool):
        self.memory_buffer = memory_buffer  # (num_blocks, block_numel)
        self.host_pool = host_pool
        self.block_nbytes = memory_buffer[0].numel() * memory_buffer.element_size()
        assert self.block_nbytes == host_pool.block_nbytes
        device_ordinal = memory_buffer.device.index
        self.copy_stream = create_copy_stream()
        self._compute_ready = create_event()
        self._copy_done = create_event()
        self._d2h_attrs = make_memcpy_attributes(D2H_SRC_ACCESS_ORDER, True, device_ordinal)
        self._h2d_attrs = make_memcpy_attributes(H2D_SRC_ACCESS_ORDER, False, device_ordinal)

    def _device_ptr(self, block_id: int) -> driver.CUdeviceptr:
        return driver.CUdeviceptr(self.memory_buffer.data_ptr() + block_id * self.block_nbytes)

    def offload(self, block_ids: List[int]) -> List[int]:
        """Copies device blocks to host slots; returns the host slots."""
        slots = self.host_pool.reserve(len(block_ids))
        if not block_ids:
            return slots
        dsts = [driver.CUdeviceptr(self.host_pool.block_ptr(s)) for s in slots]
        srcs = [self._device_ptr(b) for b in block_ids]
        sizes = [self.block_nbytes] * len(block_ids)
        order_after(self.copy_stream, torch_current_cu_stream(), self._compute_ready)
        # expect: KVG002
        check_cu(driver.cuMemcpyBatchAsync(dsts, srcs, sizes, len(sizes), [self._d2h_attrs], [0], 1, self.copy_stream))
        # the device blocks go back to the free list right away; later kernels may overwrite them
        order_after(torch_current_cu_stream(), self.copy_stream, self._copy_done)
        return slots

    def restore(self, slots: List[int], block_ids: List[int]) -> None:
        """Copies host slots back into (newly assigned) device blocks and frees the slots."""
        if not slots:
            return
        dsts = [self._device_ptr(b) for b in block_ids]
        srcs = [driver.CUdeviceptr(self.host_pool.block_ptr(s)) for s in slots]
        sizes = [self.block_nbytes] * len(slots)
        # expect: KVG004
        check_cu(driver.cuMemcpyBatchAsync(dsts, srcs, sizes, len(sizes), [self._h2d_attrs], [0], 1, self.copy_stream))
        # compute reads the restored blocks only after the upload
        order_after(torch_current_cu_stream(), self.copy_stream, self._copy_done)
        check_cu(driver.cuStreamSynchronize(self.copy_stream))
        self.host_pool.release(slots)
