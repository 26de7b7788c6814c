"""Pinned host gradient partitions for ZeRO-Offload and the copy that fills them."""

import torch
from deepspeed.accelerator import get_accelerator


def allocate_cpu_grad_partitions(sizes):
    return [get_accelerator().pin_memory(torch.zeros(n, dtype=torch.float32)) for n in sizes]


def async_copy_partition(dest_buffer, src_flat, offset):
    """Copy one reduced gradient slice into its pinned partition, on the current stream."""
    numel = src_flat.numel()
    dest = dest_buffer.narrow(0, offset, numel)
    # expect: KVG001
    dest.copy_(src_flat.view(-1), non_blocking=True)
    return offset + numel


def _has_inf_or_nan(x):
    # Same test DeepSpeed applies to a partition before the CPU optimizer touches it.
    # expect: KVG003
    cpu_sum = float(x.float().sum())
    return cpu_sum in (float("inf"), -float("inf")) or cpu_sum != cpu_sum
