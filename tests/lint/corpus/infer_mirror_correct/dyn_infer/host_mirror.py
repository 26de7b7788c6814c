# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
import torch
from cuda.bindings import driver

from .context import DynamicInferenceContext
from .cuda_utils import check, snapshot_attributes


class HostMetadataMirror:
    """Pinned host copies of the per-request tensors the scheduler consumes after each step."""

    def __init__(self, max_requests: int, device_ordinal: int) -> None:
        self.next_tokens = torch.empty(max_requests, dtype=torch.int64, pin_memory=True)
        self.request_lengths = torch.empty(max_requests, dtype=torch.int32, pin_memory=True)
        self.finished = torch.empty(max_requests, dtype=torch.bool, pin_memory=True)
        self._attrs = [snapshot_attributes(device_ordinal)]

    def snapshot(self, ctx: DynamicInferenceContext, active: int, stream: driver.CUstream) -> None:
        pairs = (
            (self.next_tokens, ctx.next_tokens),
            (self.request_lengths, ctx.request_lengths),
            (self.finished, ctx.finished),
        )
        dsts = [driver.CUdeviceptr(host.data_ptr()) for host, _ in pairs]
        srcs = [driver.CUdeviceptr(dev.data_ptr()) for _, dev in pairs]
        sizes = [active * dev.element_size() for _, dev in pairs]
        err, fail_idx = driver.cuMemcpyBatchAsync(dsts, srcs, sizes, len(pairs), self._attrs, [0], 1, stream)
        if err != driver.CUresult.CUDA_SUCCESS:
            raise RuntimeError(f"metadata snapshot failed at copy {fail_idx}: {err}")
