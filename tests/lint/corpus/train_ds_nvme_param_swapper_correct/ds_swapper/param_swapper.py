# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0
"""Swap ZeRO-3 parameter partitions between accelerator memory and NVMe."""
from enum import Enum

import torch
from deepspeed import comm as dist
from deepspeed.accelerator import get_accelerator
from deepspeed.ops.op_builder import AsyncIOBuilder
from deepspeed.utils.logging import logger

from .swap_utils import SwapBufferPool, aligned_numel, swap_path


class PartitionedParamStatus(Enum):
    AVAILABLE = 1
    NOT_AVAILABLE = 2
    INFLIGHT = 3


class PartitionedParamSwapper:

    def __init__(self, ds_config, model_dtype):
        aio_config = ds_config.aio_config
        self.swap_folder = ds_config.zero_config.offload_param.nvme_path
        self.dtype = model_dtype
        self.rank = dist.get_rank()
        self.numel_alignment = aio_config["block_size"] // torch.tensor([], dtype=model_dtype).element_size()
        self.aio_handle = AsyncIOBuilder().load(verbose=False).aio_handle(
            aio_config["block_size"], aio_config["queue_depth"], aio_config["single_submit"],
            aio_config["overlap_events"], aio_config["intra_op_parallelism"])
        buffer_numel = aligned_numel(ds_config.zero_config.offload_param.buffer_size, self.numel_alignment)
        self.buffer_pool = SwapBufferPool(ds_config.zero_config.offload_param.buffer_count, buffer_numel, model_dtype)
        self.swap_out_stream = get_accelerator().Stream()
        self.swap_in_stream = get_accelerator().Stream()
        self.swap_in_event = None
        self.pending_write_buffers = []
        self.inflight_params = []

    def _path(self, param):
        return swap_path(self.swap_folder, param.ds_id, self.rank)

    def swap_out_and_release(self, params):
        """Write the partitions of ``params`` to NVMe and free their accelerator memory."""
        if len(params) > self.buffer_pool.available():
            self.synchronize_writes()
        buffers = []
        # the optimizer step that produced the partitions ran on the compute stream
        self.swap_out_stream.wait_stream(get_accelerator().current_stream())
        with get_accelerator().stream(self.swap_out_stream):
            for param in params:
                buffer = self.buffer_pool.allocate(param.ds_tensor.numel())
                buffer.copy_(param.ds_tensor.data.view(-1), non_blocking=True)
                param.ds_tensor.record_stream(self.swap_out_stream)
                buffers.append(buffer)
        self.swap_out_stream.synchronize()

        for param, buffer in zip(params, buffers):
            self.aio_handle.async_pwrite(buffer, self._path(param))
            param.ds_tensor.data = torch.empty(0, dtype=self.dtype, device=param.ds_tensor.device)
            param.ds_tensor.status = PartitionedParamStatus.NOT_AVAILABLE
        self.pending_write_buffers.extend(buffers)

    def synchronize_writes(self):
        if not self.pending_write_buffers:
            return
        completed = self.aio_handle.wait()
        if completed != len(self.pending_write_buffers):
            logger.warning(f"swap out: {completed} of {len(self.pending_write_buffers)} writes completed")
        self.buffer_pool.release_all(self.pending_write_buffers)
        self.pending_write_buffers = []

    def swap_in(self, params):
        """Read ``params`` back from NVMe into fresh accelerator tensors."""
        self.synchronize_writes()
        buffers = [self.buffer_pool.allocate(p.ds_numel) for p in params]
        for param, buffer in zip(params, buffers):
            self.aio_handle.async_pread(buffer, self._path(param))
        self.aio_handle.wait()

        device = get_accelerator().current_device_name()
        with get_accelerator().stream(self.swap_in_stream):
            for param, buffer in zip(params, buffers):
                dst = torch.empty(param.ds_numel, dtype=self.dtype, device=device)
                dst.copy_(buffer, non_blocking=True)
                param.ds_tensor.data = dst
                param.ds_tensor.status = PartitionedParamStatus.INFLIGHT
        self.swap_in_event = get_accelerator().Event()
        self.swap_in_event.record(self.swap_in_stream)
        self.inflight_params.extend(params)
        self.swap_in_event.synchronize()
        self.buffer_pool.release_all(buffers)

    def synchronize_reads(self):
        """Called before the swapped-in params are used on the compute stream."""
        if self.swap_in_event is None:
            return
        compute_stream = get_accelerator().current_stream()
        compute_stream.wait_event(self.swap_in_event)
        for param in self.inflight_params:
            param.ds_tensor.record_stream(compute_stream)
            param.ds_tensor.status = PartitionedParamStatus.AVAILABLE
        self.inflight_params = []
        self.swap_in_event = None
