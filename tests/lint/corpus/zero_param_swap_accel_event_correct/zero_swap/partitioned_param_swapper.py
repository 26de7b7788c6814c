# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0
"""Functionality of swapping partitioned parameters to/from NVMe."""

import os
from enum import Enum
from typing import Dict, List

import torch
from deepspeed import comm as dist
from deepspeed.accelerator import get_accelerator
from deepspeed.ops.op_builder import AsyncIOBuilder
from deepspeed.utils import logger

from .config import OffloadParamConfig
from .constants import SWAP_FILE_SUFFIX, SWAP_FOLDER_PREFIX
from .swap_utils import SwapBufferPool, aligned_numel, order_after_compute, swap_in_tensors, swap_out_tensors


class PartitionedParamStatus(Enum):
    AVAILABLE = 1
    NOT_AVAILABLE = 2
    INFLIGHT = 3


class AsyncPartitionedParameterSwapper:

    def __init__(self, config: OffloadParamConfig, dtype: torch.dtype):
        self.config = config
        self.dtype = dtype
        self.swap_folder = os.path.join(config.nvme_path, SWAP_FOLDER_PREFIX, f"rank{dist.get_rank()}")
        os.makedirs(self.swap_folder, exist_ok=True)

        aio_op = AsyncIOBuilder().load(verbose=False)
        aio = config.aio
        self.aio_read_handle = aio_op.aio_handle(aio.block_size, aio.queue_depth, aio.single_submit,
                                                 aio.overlap_events, aio.thread_count)
        self.aio_write_handle = aio_op.aio_handle(aio.block_size, aio.queue_depth, aio.single_submit,
                                                  aio.overlap_events, aio.thread_count)

        self.swap_stream = get_accelerator().Stream()
        self.buffer_pool = SwapBufferPool(config.buffer_count, config.buffer_size, dtype)
        self.param_id_to_buffer_id: Dict[int, int] = {}
        self.param_id_to_numel: Dict[int, int] = {}
        self.pending_reads = 0
        self.element_size = torch.tensor([], dtype=dtype).element_size()

    def _swap_path(self, param) -> str:
        return os.path.join(self.swap_folder, f"{param.ds_id}_param{SWAP_FILE_SUFFIX}")

    def swap_out_and_release(self, params: List) -> None:
        accel = get_accelerator()
        buffers, paths = [], []
        order_after_compute(self.swap_stream)
        with accel.stream(self.swap_stream):
            for param in params:
                src = param.ds_tensor.data
                numel = aligned_numel(src.numel(), src.element_size())
                buffer_id, buffer = self.buffer_pool.acquire(numel)
                if buffer is None:
                    raise RuntimeError(f"no free swap buffer for param {param.ds_id} ({numel} elements)")
                buffer.narrow(0, 0, src.numel()).copy_(src.view(-1), non_blocking=True)
                self.param_id_to_buffer_id[param.ds_id] = buffer_id
                self.param_id_to_numel[param.ds_id] = src.numel()
                buffers.append(buffer)
                paths.append(self._swap_path(param))
        self.swap_stream.synchronize()

        swap_out_tensors(self.aio_write_handle, buffers, paths)
        assert self.aio_write_handle.wait() == len(buffers)

        for param in params:
            self.buffer_pool.release(self.param_id_to_buffer_id.pop(param.ds_id))
            param.ds_tensor.data = torch.empty(0, dtype=self.dtype, device=param.ds_tensor.device)
            param.ds_tensor.status = PartitionedParamStatus.NOT_AVAILABLE
        logger.debug(f"swapped out {len(params)} partitions to {self.swap_folder}")

    def swap_in(self, params: List, async_op: bool = True) -> None:
        buffers, paths = [], []
        for param in params:
            numel = self.param_id_to_numel[param.ds_id]
            buffer_id, buffer = self.buffer_pool.acquire(aligned_numel(numel, self.element_size))
            self.param_id_to_buffer_id[param.ds_id] = buffer_id
            buffers.append(buffer)
            paths.append(self._swap_path(param))
            param.ds_tensor.data = buffer.narrow(0, 0, numel)
            param.ds_tensor.status = PartitionedParamStatus.INFLIGHT
        self.pending_reads += swap_in_tensors(self.aio_read_handle, buffers, paths)
        if not async_op:
            self.synchronize_reads(params)

    def synchronize_reads(self, params: List) -> None:
        if self.pending_reads:
            assert self.aio_read_handle.wait() == self.pending_reads
            self.pending_reads = 0
        for param in params:
            param.ds_tensor.status = PartitionedParamStatus.AVAILABLE
