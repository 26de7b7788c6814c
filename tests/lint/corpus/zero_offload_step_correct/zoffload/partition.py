"""Helpers that move flat partitions between the accelerator and the host."""
from __future__ import annotations

import torch
from torch._utils import _flatten_dense_tensors, _unflatten_dense_tensors


def flatten_dense_tensors_aligned(tensor_list, alignment):
    flat = _flatten_dense_tensors(tensor_list)
    remainder = flat.numel() % alignment
    if remainder:
        pad = torch.zeros(alignment - remainder, dtype=flat.dtype, device=flat.device)
        flat = torch.cat([flat, pad])
    return flat


def link_params_to_flat(params, flat):
    """Make every parameter a view into ``flat`` so updates to the flat buffer are visible."""
    numel = sum(p.numel() for p in params)
    for p, view in zip(params, _unflatten_dense_tensors(flat.narrow(0, 0, numel), params)):
        p.data = view


def async_copy_grad_to_cpu(cpu_grad_flat, bucket, dest_offset, src_offset, numel):
    """Copy ``numel`` gradient elements out of the IPG bucket into the pinned host partition."""
    dest = cpu_grad_flat.narrow(0, dest_offset, numel)
    src = bucket.narrow(0, src_offset, numel)
    dest.copy_(src, non_blocking=True)


def async_copy_params_to_device(device_flat, host_flat):
    device_flat.copy_(host_flat, non_blocking=True)
