"""Copies finished KV blocks of every layer into a pinned host pool with the driver API.

Stores run on a non-blocking driver stream; each store waits for the KV-producing stream
with an event, so the model keeps running while blocks drain to host memory.
"""
from collections import deque
from dataclasses import dataclass
from typing import List, Sequence

import torch
from cuda.bindings import driver as cu

from ._cu import call


@dataclass
class StoreJob:
    job_id: int
    done: cu.CUevent


class DriverKVOffloader:
    def __init__(self, kv_caches: List[torch.Tensor], num_host_blocks: int):
        self._kv = kv_caches                        # per layer: (num_blocks, block_elems)
        self._block_bytes = kv_caches[0][0].numel() * kv_caches[0].element_size()
        self._layer_bytes = num_host_blocks * self._block_bytes
        self._host = call(cu.cuMemHostAlloc, len(kv_caches) * self._layer_bytes, 0)
        self._stream = call(cu.cuStreamCreate, cu.CUstream_flags.CU_STREAM_NON_BLOCKING)
        self._ready = call(cu.cuEventCreate, cu.CUevent_flags.CU_EVENT_DISABLE_TIMING)
        self._jobs = deque()

    def _host_ptr(self, layer: int, block: int) -> int:
        return int(self._host) + layer * self._layer_bytes + block * self._block_bytes

    def store(self, job_id: int, gpu_blocks: Sequence[int], host_blocks: Sequence[int]) -> None:
        producer = torch.cuda.current_stream().cuda_stream
        call(cu.cuEventRecord, self._ready, producer)
        call(cu.cuStreamWaitEvent, self._stream, self._ready, 0)
        bb = self._block_bytes
        for layer, kv in enumerate(self._kv):
            base = kv.data_ptr()
            for g, h in zip(gpu_blocks, host_blocks):
                # expect: KVG001
                call(cu.cuMemcpyDtoHAsync, self._host_ptr(layer, h), base + g * bb, bb, self._stream)
        done = call(cu.cuEventCreate, cu.CUevent_flags.CU_EVENT_DISABLE_TIMING)
        call(cu.cuEventRecord, done, self._stream)
        self._jobs.append(StoreJob(job_id, done))

    def finished(self) -> List[int]:
        """Ids of the stores that have landed, oldest first."""
        out = []
        while self._jobs:
            ret = cu.cuEventQuery(self._jobs[0].done)[0]
            if ret == cu.CUresult.CUDA_ERROR_NOT_READY:
                break
            job = self._jobs.popleft()
            call(cu.cuEventDestroy, job.done)
            out.append(job.job_id)
        return out
