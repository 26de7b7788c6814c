# SPDX-License-Identifier: Apache-2.0
import logging
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field

import torch
from cuda.bindings import driver

from .cu import EventPool, check, create_stream
from .hooks import StepHookRegistry
from .host_buffer import PinnedBlockBuffer

logger = logging.getLogger(__name__)


@dataclass
class SaveRequest:
    req_id: str
    gpu_block_ids: list[int]


@dataclass
class StoreJob:
    req_id: str
    src_ptrs: list[driver.CUdeviceptr]
    host_blocks: list[int]
    fence: driver.CUevent
    done: driver.CUevent
    future: Future | None = field(default=None, repr=False)


class DriverOffloadWorker:
    def __init__(self, kv_cache: torch.Tensor, host_buffer: PinnedBlockBuffer,
                 hooks: StepHookRegistry):
        self.kv_cache = kv_cache
        self.block_bytes = kv_cache[0].numel() * kv_cache.element_size()
        self.host_buffer = host_buffer
        self._ctx = check(driver.cuCtxGetCurrent())
        self._stream = create_stream()
        self._events = EventPool()
        self._executor = ThreadPoolExecutor(
            max_workers=1, thread_name_prefix="kv-d2h", initializer=self._bind_context
        )
        self._pending: list[SaveRequest] = []
        self._inflight: dict[str, StoreJob] = {}
        hooks.register(self.on_step_end)

    def _bind_context(self) -> None:
        check(driver.cuCtxSetCurrent(self._ctx))

    def request_save(self, request: SaveRequest) -> None:
        self._pending.append(request)

    def on_step_end(self, step: int, compute_stream: driver.CUstream) -> None:
        pending, self._pending = self._pending, []
        for request in pending:
            job = StoreJob(
                req_id=request.req_id,
                src_ptrs=[self._gpu_ptr(b) for b in request.gpu_block_ids],
                host_blocks=self.host_buffer.alloc(len(request.gpu_block_ids)),
                fence=self._events.acquire(),
                done=self._events.acquire(),
            )
            check(driver.cuEventRecord(job.fence, compute_stream))
            job.future = self._executor.submit(self._store, job)
            self._inflight[request.req_id] = job
        if pending:
            logger.debug("step %d: queued %d offloads", step, len(pending))

    def _gpu_ptr(self, block_id: int) -> driver.CUdeviceptr:
        return driver.CUdeviceptr(self.kv_cache.data_ptr() + block_id * self.block_bytes)

    def _store(self, job: StoreJob) -> None:
        check(driver.cuStreamWaitEvent(self._stream, job.fence, 0))
        for src, block in zip(job.src_ptrs, job.host_blocks):
            dst = self.host_buffer.ptr(block)
            check(driver.cuMemcpyAsync(dst, src, self.block_bytes, self._stream))
        check(driver.cuEventRecord(job.done, self._stream))

    def get_finished(self) -> set[str]:
        finished = set()
        for req_id, job in list(self._inflight.items()):
            if not job.future.done():
                continue
            err, = driver.cuEventQuery(job.done)
            if err == driver.CUresult.CUDA_ERROR_NOT_READY:
                continue
            check((err,))
            self._events.release(job.fence)
            self._events.release(job.done)
            finished.add(req_id)
            del self._inflight[req_id]
        return finished
