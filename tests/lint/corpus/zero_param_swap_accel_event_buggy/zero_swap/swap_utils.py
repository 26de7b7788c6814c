# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0
"""Helpers shared by the parameter and optimizer swappers."""

from typing import List

import torch
from deepspeed.accelerator import get_accelerator
from deepspeed.utils import logger

from .constants import AIO_ALIGNED_BYTES


def aligned_numel(numel: int, element_size: int) -> int:
    align = AIO_ALIGNED_BYTES // element_size
    remainder = numel % align
    return numel if remainder == 0 else numel + align - remainder


def order_after_compute(swap_stream):
    """Make ``swap_stream`` start after the work queued so far on the current stream."""
    accel = get_accelerator()
    compute_done = accel.Event()
    compute_done.record(accel.current_stream())
    swap_stream.wait_event(compute_done)
    return compute_done


def swap_out_tensors(aio_handle, buffers: List[torch.Tensor], paths: List[str]) -> int:
    for buffer, path in zip(buffers, paths):
        assert aio_handle.async_pwrite(buffer, path) == 0
    return len(buffers)


def swap_in_tensors(aio_handle, buffers: List[torch.Tensor], paths: List[str]) -> int:
    for buffer, path in zip(buffers, paths):
        assert aio_handle.async_pread(buffer, path) == 0
    return len(buffers)


class SwapBufferPool:

    def __init__(self, count: int, numel: int, dtype: torch.dtype):
        self.numel = numel
        flat = torch.zeros(count * numel, dtype=dtype, device="cpu")
        self.flat = get_accelerator().pin_memory(flat, align_bytes=0)
        self.free_ids = list(range(count))
        logger.debug(f"SwapBufferPool: {count} buffers of {numel} elements")

    def acquire(self, numel: int):
        if not self.free_ids or numel > self.numel:
            return None, None
        buffer_id = self.free_ids.pop()
        return buffer_id, self.flat.narrow(0, buffer_id * self.numel, numel)

    def release(self, buffer_id: int) -> None:
        self.free_ids.append(buffer_id)
