"""Swaps fp16 parameter partitions between GPU and NVMe via pinned buffers."""

import os
from enum import Enum
from typing import Dict, List

import torch
from deepspeed.accelerator import get_accelerator

from .constants import OFFLOAD_PARAM_BUFFER_COUNT, SWAP_FILE_SUFFIX
from .swap_utils import PinnedBufferPool, build_aio_handle, swap_stream_context


class PartitionedParamStatus(Enum):
    AVAILABLE = 1
    NOT_AVAILABLE = 2
    INFLIGHT = 3


class AsyncPartitionedParameterSwapper:
    def __init__(self, swap_folder: str, max_partition_numel: int,
                 dtype: torch.dtype = torch.float16):
        self.swap_folder = swap_folder
        os.makedirs(swap_folder, exist_ok=True)
        self.dtype = dtype
        self.aio_handle = build_aio_handle()
        self.swap_stream = get_accelerator().Stream()
        self.pinned_pool = PinnedBufferPool(OFFLOAD_PARAM_BUFFER_COUNT,
                                            max_partition_numel, dtype)
        # GPU partitions (padded to max_partition_numel) released by swap-out,
        # recycled by swap-in
        self.gpu_partition_pool: List[torch.Tensor] = []
        self.pending_writes: Dict[int, torch.Tensor] = {}

    def _swap_path(self, param) -> str:
        return os.path.join(self.swap_folder, f"{param.ds_id}{SWAP_FILE_SUFFIX}")

    def swap_out_and_release(self, params) -> None:
        """Called after the optimizer step updated `param.ds_tensor` in place
        on the compute stream."""
        staged = []
        with swap_stream_context(self.swap_stream):
            for param in params:
                buf = self.pinned_pool.get()
                numel = param.ds_tensor.numel()
                # expect: KVG001
                buf[:numel].copy_(param.ds_tensor.data.view(-1), non_blocking=True)
                staged.append((param, buf, numel))
        self.swap_stream.synchronize()
        for param, buf, numel in staged:
            self.aio_handle.async_pwrite(buf[:numel], self._swap_path(param))
            self.pending_writes[param.ds_id] = buf
            self.gpu_partition_pool.append(param.ds_tensor.data)
            param.ds_tensor.data = torch.empty(0, dtype=self.dtype,
                                               device=param.ds_tensor.device)
            param.ds_tensor.status = PartitionedParamStatus.NOT_AVAILABLE

    def synchronize_writes(self) -> None:
        if self.pending_writes:
            self.aio_handle.wait()
        for buf in self.pending_writes.values():
            self.pinned_pool.put(buf)
        self.pending_writes.clear()

    def swap_in(self, params) -> None:
        self.synchronize_writes()
        staged = []
        for param in params:
            buf = self.pinned_pool.get()
            numel = param.ds_numel_partition
            self.aio_handle.async_pread(buf[:numel], self._swap_path(param))
            staged.append((param, buf, numel))
            param.ds_tensor.status = PartitionedParamStatus.INFLIGHT
        self.aio_handle.wait()

        compute = get_accelerator().current_stream()
        with swap_stream_context(self.swap_stream):
            for param, buf, numel in staged:
                if self.gpu_partition_pool:
                    gpu_buf = self.gpu_partition_pool.pop()
                else:
                    gpu_buf = torch.empty(
                        numel, dtype=self.dtype,
                        device=get_accelerator().current_device_name())
                # expect: KVG004
                gpu_buf[:numel].copy_(buf[:numel], non_blocking=True)
                gpu_buf.record_stream(compute)
                param.ds_tensor.data = gpu_buf[:numel]
        compute.wait_stream(self.swap_stream)
        # pinned staging can only be recycled once the H2D copies are done
        self.swap_stream.synchronize()
        for param, buf, _ in staged:
            self.pinned_pool.put(buf)
            param.ds_tensor.status = PartitionedParamStatus.AVAILABLE
