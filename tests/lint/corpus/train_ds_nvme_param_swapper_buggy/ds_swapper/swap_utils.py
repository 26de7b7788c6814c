# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0
"""Pinned buffer pool used by the NVMe swappers."""
import os

import torch
from deepspeed.accelerator import get_accelerator
from deepspeed.utils.logging import logger

MIN_AIO_BYTES = 1024**2
AIO_ALIGNED_BYTES = 1024


def swap_path(swap_folder, ds_id, rank):
    return os.path.join(swap_folder, f"rank{rank}_param_{ds_id}.tensor.swp")


def aligned_numel(numel, alignment):
    remainder = numel % alignment
    return numel if remainder == 0 else numel + alignment - remainder


class SwapBufferPool:
    """A fixed number of equally sized pinned host buffers."""

    def __init__(self, num_buffers, buffer_numel, dtype):
        self.buffer_numel = buffer_numel
        self.dtype = dtype
        self.buffers = [
            get_accelerator().pin_memory(torch.empty(buffer_numel, dtype=dtype, device="cpu"))
            for _ in range(num_buffers)
        ]
        self.free_ids = list(range(num_buffers))
        self.in_use = {}
        logger.info(f"SwapBufferPool: {num_buffers} x {buffer_numel} elements of {dtype}")

    def available(self):
        return len(self.free_ids)

    def allocate(self, numel):
        if numel > self.buffer_numel:
            raise ValueError(f"tensor of {numel} elements does not fit a {self.buffer_numel} element swap buffer")
        if not self.free_ids:
            raise RuntimeError("out of swap buffers, call synchronize_writes() first")
        buffer_id = self.free_ids.pop()
        buffer = self.buffers[buffer_id].narrow(0, 0, numel)
        self.in_use[buffer.data_ptr()] = buffer_id
        return buffer

    def release(self, buffer):
        buffer_id = self.in_use.pop(buffer.data_ptr())
        self.free_ids.append(buffer_id)

    def release_all(self, buffers):
        for buffer in buffers:
            self.release(buffer)
