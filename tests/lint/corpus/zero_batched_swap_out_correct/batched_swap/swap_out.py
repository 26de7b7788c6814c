# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0
"""Drain fp16 parameter partitions into pinned host buffers before NVMe write."""

import logging
from typing import Dict, List

import torch
from cuda.bindings import driver
from deepspeed.accelerator import get_accelerator

from .batch_copy import batch_copy_d2h
from .cuda_utils import check, create_event, create_swap_stream, order_after

logger = logging.getLogger(__name__)


class BatchedParamSwapOut:

    def __init__(self, aio_handle, swap_paths: Dict[int, str]) -> None:
        self.aio_handle = aio_handle
        self.swap_paths = swap_paths
        self.stream = create_swap_stream()
        self.ready_event = create_event()
        self.host_buffers: Dict[int, torch.Tensor] = {}

    def _host_buffer_for(self, param: torch.nn.Parameter) -> torch.Tensor:
        buf = self.host_buffers.get(param.ds_id)
        if buf is None or buf.numel() < param.ds_tensor.numel():
            buf = get_accelerator().pin_memory(torch.empty(param.ds_tensor.numel(), dtype=param.ds_tensor.dtype))
            self.host_buffers[param.ds_id] = buf
        return buf

    @torch.no_grad()
    def swap_out(self, params: List[torch.nn.Parameter]) -> None:
        compute = driver.CUstream(torch.cuda.current_stream().cuda_stream)
        order_after(self.stream, compute, self.ready_event)

        dst_ptrs, src_ptrs, sizes, staged = [], [], [], []
        for param in params:
            src = param.ds_tensor.data
            host = self._host_buffer_for(param)
            dst_ptrs.append(host.data_ptr())
            src_ptrs.append(src.data_ptr())
            sizes.append(src.numel() * src.element_size())
            staged.append((param, host.narrow(0, 0, src.numel())))

        issued = batch_copy_d2h(dst_ptrs, src_ptrs, sizes, self.stream)
        check(driver.cuStreamSynchronize(self.stream))

        for param, host in staged:
            self.aio_handle.async_pwrite(host, self.swap_paths[param.ds_id])
        self.aio_handle.wait()
        logger.debug("swapped out %d partitions in %d batched copies", len(staged), issued)
