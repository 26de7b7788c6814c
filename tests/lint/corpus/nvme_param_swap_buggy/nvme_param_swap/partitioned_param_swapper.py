"""Swaps ZeRO-3 parameter partitions between GPU memory and NVMe."""
import logging
import os
from typing import Iterable, List, Tuple

import torch

from .async_io import AsyncIOHandle
from .constants import SWAP_FILE_SUFFIX, PartitionedParamStatus
from .swap_buffers import SwapBufferPool

logger = logging.getLogger(__name__)


class AsyncPartitionedParameterSwapper:

    def __init__(self, swap_folder: str, buffer_count: int, buffer_numel: int, dtype: torch.dtype = torch.float16):
        os.makedirs(swap_folder, exist_ok=True)
        self.swap_folder = swap_folder
        self.dtype = dtype
        self.buffers = SwapBufferPool(buffer_count, buffer_numel, dtype)
        self.aio_handle = AsyncIOHandle()
        self.swap_stream = torch.cuda.Stream()
        self.pending_writes: List[int] = []

    def _swap_path(self, param) -> str:
        return os.path.join(self.swap_folder, f"{param.ds_id}_param{SWAP_FILE_SUFFIX}")

    @torch.no_grad()
    def swap_out_and_release(self, params: Iterable[torch.nn.Parameter]) -> None:
        staged: List[Tuple[torch.nn.Parameter, torch.Tensor]] = []
        with torch.cuda.stream(self.swap_stream):
            for param in params:
                src = param.ds_tensor.data.view(-1)
                dst = self.buffers.allocate(param.ds_id, src.numel())
                # expect: KVG001
                dst.copy_(src, non_blocking=True)
                src.record_stream(self.swap_stream)
                staged.append((param, dst))

        for param, dst in staged:
            # expect: KVG003
            self.aio_handle.async_pwrite(dst.numpy(), self._swap_path(param))
            param.ds_tensor.data = torch.empty(0, dtype=self.dtype, device=param.ds_tensor.device)
            param.ds_tensor.status = PartitionedParamStatus.NOT_AVAILABLE
            self.pending_writes.append(param.ds_id)
        logger.debug("swap-out submitted for %d partitions", len(staged))

    def synchronize_writes(self) -> None:
        self.swap_stream.synchronize()
        self.aio_handle.wait()
        for param_id in self.pending_writes:
            self.buffers.free(param_id)
        self.pending_writes.clear()

    @torch.no_grad()
    def swap_in(self, params: Iterable[torch.nn.Parameter]) -> None:
        # swap-in reuses the same pinned buffers, so outstanding writes must land first
        self.synchronize_writes()
        staged: List[Tuple[torch.nn.Parameter, torch.Tensor]] = []
        for param in params:
            buf = self.buffers.allocate(param.ds_id, param.ds_tensor.ds_numel)
            self.aio_handle.async_pread(buf.numpy(), self._swap_path(param))
            param.ds_tensor.status = PartitionedParamStatus.INFLIGHT
            staged.append((param, buf))
        self.aio_handle.wait()

        compute_stream = torch.cuda.current_stream()
        self.swap_stream.wait_stream(compute_stream)
        with torch.cuda.stream(self.swap_stream):
            for param, buf in staged:
                partition = torch.empty(buf.numel(), dtype=self.dtype, device=torch.cuda.current_device())
                partition.copy_(buf, non_blocking=True)
                partition.record_stream(compute_stream)
                param.ds_tensor.data = partition
            swapped_in = torch.cuda.Event()
            swapped_in.record()
        compute_stream.wait_event(swapped_in)
        for param, _ in staged:
            param.ds_tensor.status = PartitionedParamStatus.AVAILABLE
            self.buffers.free(param.ds_id)
