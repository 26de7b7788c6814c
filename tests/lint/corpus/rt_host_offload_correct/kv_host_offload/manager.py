# SPDX-FileCopyrightText: Copyright (c) 2025 NVIDIA CORPORATION & AFFILIATES. All rights reserved.
# SPDX-License-Identifier: Apache-2.0
from typing import List, Sequence

from cuda.bindings import runtime as cudart

from tensorrt_llm.logger import logger

from .constants import MAX_BLOCKS_PER_BATCH, OFFLOAD_SRC_ACCESS_ORDER
from .host_pool import HostBlockPool
from .rt_utils import CUDA_CHECK, batch_attrs


class KVCacheHostOffloadManager:

    def __init__(self, device_id: int, device_pool_ptr: int, host_pool: HostBlockPool):
        CUDA_CHECK(cudart.cudaSetDevice(device_id))
        self.device_id = device_id
        self._device_pool_ptr = device_pool_ptr
        self.host_pool = host_pool
        self.block_bytes = host_pool.block_bytes
        flags = cudart.cudaStreamNonBlocking
        self.offload_stream = CUDA_CHECK(cudart.cudaStreamCreateWithFlags(flags))
        self.onboard_stream = CUDA_CHECK(cudart.cudaStreamCreateWithFlags(flags))
        ev_flags = cudart.cudaEventDisableTiming
        self.forward_done = CUDA_CHECK(cudart.cudaEventCreateWithFlags(ev_flags))
        self.offload_done = CUDA_CHECK(cudart.cudaEventCreateWithFlags(ev_flags))

    def device_ptr(self, block_id: int) -> int:
        return self._device_pool_ptr + block_id * self.block_bytes

    def on_forward_end(self, compute_stream: int) -> None:
        """Registered as the forward-pass callable; runs on the executor thread."""
        CUDA_CHECK(cudart.cudaEventRecord(self.forward_done, compute_stream))

    def offload(self, device_block_ids: Sequence[int], compute_stream: int) -> List[int]:
        """Copy evicted device blocks into the host tier; returns the host block ids."""
        host_ids = self.host_pool.allocate(len(device_block_ids))
        CUDA_CHECK(cudart.cudaStreamWaitEvent(self.offload_stream, self.forward_done, 0))
        attrs = [batch_attrs(OFFLOAD_SRC_ACCESS_ORDER, src_device=self.device_id, dst_device=None)]
        for start in range(0, len(device_block_ids), MAX_BLOCKS_PER_BATCH):
            dev_chunk = device_block_ids[start:start + MAX_BLOCKS_PER_BATCH]
            host_chunk = host_ids[start:start + MAX_BLOCKS_PER_BATCH]
            dsts = [self.host_pool.ptr(h) for h in host_chunk]
            srcs = [self.device_ptr(d) for d in dev_chunk]
            sizes = [self.block_bytes] * len(dev_chunk)
            CUDA_CHECK(cudart.cudaMemcpyBatchAsync(dsts, srcs, sizes, len(sizes), attrs, [0], 1, self.offload_stream))
        CUDA_CHECK(cudart.cudaEventRecord(self.offload_done, self.offload_stream))
        # the evicted device blocks go back to the free list; later writers must wait for the copy
        CUDA_CHECK(cudart.cudaStreamWaitEvent(compute_stream, self.offload_done, 0))
        logger.debug(f"offloaded {len(device_block_ids)} blocks to host")
        return host_ids
