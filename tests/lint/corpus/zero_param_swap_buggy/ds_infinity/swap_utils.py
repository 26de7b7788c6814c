# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
"""Helpers for moving tensor partitions between device, pinned host memory and NVMe."""

import torch

from .constants import AIO_ALIGNED_BYTES


def swap_in_tensors(swap_handle, tensor_buffers, swap_paths):
    for buffer, path in zip(tensor_buffers, swap_paths):
        assert swap_handle.async_pread(buffer, path) == 0


def swap_out_tensors(swap_handle, tensor_buffers, swap_paths):
    for buffer, path in zip(tensor_buffers, swap_paths):
        assert swap_handle.async_pwrite(buffer, path) == 0


def aligned_numel(numel: int, dtype: torch.dtype) -> int:
    element_size = torch.tensor([], dtype=dtype).element_size()
    numel_alignment = AIO_ALIGNED_BYTES // element_size
    remainder = numel % numel_alignment
    return numel if remainder == 0 else numel + numel_alignment - remainder


def get_sized_buffer(buffer: torch.Tensor, num_elems: int) -> torch.Tensor:
    assert num_elems <= buffer.numel(), \
        f"num_elems {num_elems} exceeds buffer size {buffer.numel()}"
    return buffer.narrow(0, 0, num_elems) if num_elems < buffer.numel() else buffer


def stage_partition_to_host(pinned_buffer: torch.Tensor, partition: torch.Tensor) -> torch.Tensor:
    """Copy a device partition into a pinned staging buffer on the current stream."""
    dst = get_sized_buffer(pinned_buffer, partition.numel())
    # expect: KVG001
    dst.copy_(partition.data.view(-1), non_blocking=True)
    return dst


def load_partition_from_host(gpu_buffer: torch.Tensor, pinned_buffer: torch.Tensor, numel: int) -> torch.Tensor:
    """Copy a pinned staging buffer into a device partition buffer on the current stream."""
    dst = gpu_buffer.narrow(0, 0, numel)
    # expect: KVG004
    dst.copy_(pinned_buffer.narrow(0, 0, numel), non_blocking=True)
    return dst
