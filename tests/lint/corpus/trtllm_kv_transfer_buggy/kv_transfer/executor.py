from __future__ import annotations

import ctypes
from dataclasses import dataclass, field
from typing import List

from cuda import cuda as driver

from .cuda_utils import CudaStream
from .pools import BlockRange, KVCacheBlockPool
from .transfer_manager import KVCacheTransferManager


@dataclass
class ScheduledRequest:
    request_id: int
    block_ranges: List[BlockRange]
    num_tokens: int


@dataclass
class ScheduledBatch:
    context_and_generation: List[ScheduledRequest] = field(default_factory=list)
    paused: List[ScheduledRequest] = field(default_factory=list)
    resumed: List[ScheduledRequest] = field(default_factory=list)


class PyExecutorLoop:
    def __init__(self, pool: KVCacheBlockPool, attention_kernel, compute_stream: CudaStream) -> None:
        self.pool = pool
        self.compute_stream = compute_stream
        self.transfer_manager = KVCacheTransferManager(pool, compute_stream)
        self._attention_kernel = attention_kernel

    def _launch_attention(self, batch: ScheduledBatch) -> None:
        # the attention kernel reads every block of the batch and appends the new tokens' KV
        num_tokens = sum(r.num_tokens for r in batch.context_and_generation)
        args = (ctypes.c_void_p(int(self.pool.primary_ptr)), ctypes.c_int(self.pool.num_primary_blocks),
                ctypes.c_int(num_tokens))
        arg_types = (ctypes.c_void_p, ctypes.c_int, ctypes.c_int)
        err, = driver.cuLaunchKernel(
            self._attention_kernel, max(num_tokens, 1), 1, 1, 128, 1, 1, 0,
            driver.CUstream(int(self.compute_stream.handle)), (args, arg_types), 0,
        )
        if err != driver.CUresult.CUDA_SUCCESS:
            raise RuntimeError(f"attention launch failed: {err}")

    def step(self, batch: ScheduledBatch) -> None:
        for req in batch.paused:
            self.transfer_manager.offload(req.request_id, req.block_ranges)
        for req in batch.resumed:
            self.transfer_manager.onboard(req.request_id, req.block_ranges)
        self.transfer_manager.wait_onboarded([r.request_id for r in batch.resumed], self.compute_stream)
        self._launch_attention(batch)
        self.transfer_manager.sync_offloaded([r.request_id for r in batch.paused])
