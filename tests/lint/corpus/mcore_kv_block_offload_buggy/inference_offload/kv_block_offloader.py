# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
import ctypes
import logging
from typing import Dict, List, Tuple

import numpy as np
import torch
from cuda.bindings import driver

from .constants import CUDA_MEMCPY_DEVICE_TO_HOST, DEVICE_SRC_ACCESS_ORDER, HOST_SRC_ACCESS_ORDER
from .cuda_utils import StreamFence, check_cu, cudart, make_batch_attrs
from .host_block_pool import HostBlockPool

logger = logging.getLogger(__name__)


class PausedRequestOffloader:
    """Moves the KV blocks of paused requests of a dynamic inference context
    to pinned host memory, and brings them back when the request resumes."""

    def __init__(self, context, num_host_blocks: int, device_id: int = 0):
        self.context = context
        self.device_id = device_id
        self.block_bytes = context.block_size_bytes
        self.host_pool = HostBlockPool(num_host_blocks, self.block_bytes)
        self.stream = check_cu(driver.cuStreamCreate(driver.CUstream_flags.CU_STREAM_NON_BLOCKING))
        self.fence = StreamFence()
        self.done_fence = StreamFence()
        self._offloaded: Dict[int, Tuple[List[int], int]] = {}
        offsets_bytes = context.max_requests * 4
        self._offsets_host_ptr = int(check_cu(driver.cuMemHostAlloc(offsets_bytes, 0)))
        self._offsets_host = np.ctypeslib.as_array(
            (ctypes.c_int32 * context.max_requests).from_address(self._offsets_host_ptr)
        )

    def _compute_stream(self):
        return driver.CUstream(torch.cuda.current_stream().cuda_stream)

    def _device_block_address(self, block_id: int) -> int:
        return self.context.memory_buffer.data_ptr() + block_id * self.block_bytes

    def offload(self, request_ids: List[int]) -> None:
        compute = self._compute_stream()
        self.fence.order(self.stream, compute)
        dsts, srcs, device_blocks, placed = [], [], [], []
        for request_id in request_ids:
            request_idx = self.context.request_index(request_id)
            count = int(self.context.request_kv_block_counts_cpu[request_idx])
            block_ids = [int(b) for b in self.context.request_to_kv_block_ids_cpu[request_idx, :count]]
            host_blocks = self.host_pool.allocate(count)
            placed.append((request_id, request_idx, host_blocks))
            device_blocks.extend(block_ids)
            for device_block, host_block in zip(block_ids, host_blocks):
                srcs.append(driver.CUdeviceptr(self._device_block_address(device_block)))
                dsts.append(driver.CUdeviceptr(self.host_pool.address(host_block)))
        if not srcs:
            return
        attrs = make_batch_attrs(DEVICE_SRC_ACCESS_ORDER, src_is_device=True, device_id=self.device_id)
        sizes = [self.block_bytes] * len(srcs)
        # expect: KVG002
        check_cu(driver.cuMemcpyBatchAsync(dsts, srcs, sizes, len(srcs), [attrs], [0], 1, self.stream))

        offsets = self.context.request_last_kv_block_offset
        cudart.memcpy_async(
            self._offsets_host_ptr, offsets.data_ptr(), offsets.numel() * 4, CUDA_MEMCPY_DEVICE_TO_HOST,
            int(self.stream),
        )
        # Device blocks return to the allocator once the compute stream has seen the copies.
        self.done_fence.order(compute, self.stream)
        self.context.block_allocator.release_memory_blocks(torch.tensor(device_blocks, dtype=torch.int32))

        cudart.stream_synchronize(int(self.stream))
        for request_id, request_idx, host_blocks in placed:
            self._offloaded[request_id] = (host_blocks, int(self._offsets_host[request_idx]))
        logger.info("offloaded %d KV blocks for %d requests", len(srcs), len(request_ids))

    def restore(self, request_id: int, device_blocks: List[int]) -> int:
        host_blocks, last_offset = self._offloaded.pop(request_id)
        compute = self._compute_stream()
        self.fence.order(self.stream, compute)
        srcs = [driver.CUdeviceptr(self.host_pool.address(b)) for b in host_blocks]
        dsts = [driver.CUdeviceptr(self._device_block_address(b)) for b in device_blocks]
        attrs = make_batch_attrs(HOST_SRC_ACCESS_ORDER, src_is_device=False, device_id=self.device_id)
        sizes = [self.block_bytes] * len(srcs)
        check_cu(driver.cuMemcpyBatchAsync(dsts, srcs, sizes, len(srcs), [attrs], [0], 1, self.stream))
        self.done_fence.order(compute, self.stream)
        cudart.stream_synchronize(int(self.stream))
        self.host_pool.release(host_blocks)
        return last_offset
