# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
"""
Functionality of swapping tensors to/from (NVMe) storage devices.
"""
from concurrent.futures import Future, ThreadPoolExecutor
from typing import List

import torch

from deepspeed.utils.logging import logger

from nvmeswap import cudart
from nvmeswap.buffers import PinnedSwapBuffer, SwapBufferPool
from nvmeswap.constants import CUDA_MEMCPY_DEVICE_TO_HOST, CUDA_MEMCPY_HOST_TO_DEVICE, SWAP_IO_WORKERS
from nvmeswap.writer import read_swap_file, write_swap_file


class AsyncTensorSwapper(object):

    def __init__(self, pool: SwapBufferPool, num_workers: int = SWAP_IO_WORKERS):
        self.pool = pool
        self.swap_stream = cudart.stream_create()
        self.compute_ready = cudart.event_create()
        self.swap_done = cudart.event_create()
        self.executor = ThreadPoolExecutor(num_workers, thread_name_prefix="ds-swap-io")
        self.pending_writes: List[Future] = []

    def _write_and_release(self, path: str, buffer: PinnedSwapBuffer, nbytes: int) -> int:
        try:
            return write_swap_file(path, buffer, nbytes)
        finally:
            self.pool.put(buffer)

    def swap_out_tensors(self, tensors: List[torch.Tensor], swap_paths: List[str]) -> None:
        compute_stream = torch.cuda.current_stream().cuda_stream
        cudart.event_record(self.compute_ready, compute_stream)
        cudart.stream_wait_event(self.swap_stream, self.compute_ready)
        for tensor, path in zip(tensors, swap_paths):
            nbytes = tensor.numel() * tensor.element_size()
            assert nbytes <= self.pool.buffer_bytes, f"{path}: {nbytes} bytes exceed swap buffer"
            buffer = self.pool.get()
            cudart.memcpy_async(buffer.ptr, tensor.data_ptr(), nbytes, CUDA_MEMCPY_DEVICE_TO_HOST, self.swap_stream)
            self.pending_writes.append(self.executor.submit(self._write_and_release, path, buffer, nbytes))
        cudart.stream_synchronize(self.swap_stream)

    def swap_in_tensors(self, numels: List[int], dtype: torch.dtype, swap_paths: List[str]) -> List[torch.Tensor]:
        outputs = []
        cudart.event_record(self.compute_ready, torch.cuda.current_stream().cuda_stream)
        cudart.stream_wait_event(self.swap_stream, self.compute_ready)
        for numel, path in zip(numels, swap_paths):
            dst = torch.empty(numel, dtype=dtype, device=torch.cuda.current_device())
            buffer = self.pool.get()
            nbytes = numel * dst.element_size()
            read_swap_file(path, buffer, nbytes)
            cudart.memcpy_async(dst.data_ptr(), buffer.ptr, nbytes, CUDA_MEMCPY_HOST_TO_DEVICE, self.swap_stream)
            cudart.stream_synchronize(self.swap_stream)
            self.pool.put(buffer)
            outputs.append(dst)
        return outputs

    def wait(self) -> int:
        written = sum(f.result() for f in self.pending_writes)
        logger.debug(f"AsyncTensorSwapper: flushed {len(self.pending_writes)} swap files, {written} bytes")
        self.pending_writes = []
        return written
