import asyncio
import threading
from collections import deque
from typing import Optional

import numpy as np
import torch
from cuda.bindings import driver as drv

from kv_aoffload.config import TransferConfig
from kv_aoffload.jobs import TransferJob


class TransferLoop:
    """Owns an event loop on a daemon thread; jobs run in submission order."""

    def __init__(self, config: TransferConfig, gpu_caches: list[torch.Tensor],
                 cpu_caches: list[torch.Tensor]):
        self.device = gpu_caches[0].device
        self.gpu_bases = np.array([t.data_ptr() for t in gpu_caches], dtype=np.uint64)
        self.cpu_bases = np.array([t.data_ptr() for t in cpu_caches], dtype=np.uint64)
        self.block_bytes = np.array([t.stride(0) * t.element_size() for t in gpu_caches],
                                    dtype=np.uint64)
        self.attrs = drv.CUmemcpyAttributes()
        self.attrs.srcAccessOrder = config.src_access_order
        if config.prefer_overlap:
            self.attrs.flags = drv.CUmemcpyFlags.CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE
        self._loop = asyncio.new_event_loop()
        self._queue: "asyncio.Queue[Optional[TransferJob]]" = asyncio.Queue()
        # jobs whose copies are queued on their stream, in issue order
        self.issued: deque[TransferJob] = deque()
        self._thread = threading.Thread(target=self._run, name="kv-offload-loop", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        torch.cuda.set_device(self.device)
        asyncio.set_event_loop(self._loop)
        self._loop.run_until_complete(self._consume())

    async def _consume(self) -> None:
        while True:
            job = await self._queue.get()
            if job is None:
                break
            self._execute(job)

    def _execute(self, job: TransferJob) -> None:
        src_bases, dst_bases = ((self.gpu_bases, self.cpu_bases) if job.gpu_to_cpu
                                else (self.cpu_bases, self.gpu_bases))
        s = np.asarray(job.src_blocks, dtype=np.uint64)[None, :]
        d = np.asarray(job.dst_blocks, dtype=np.uint64)[None, :]
        bpb = self.block_bytes[:, None]
        srcs = (src_bases[:, None] + s * bpb).ravel().tolist()
        dsts = (dst_bases[:, None] + d * bpb).ravel().tolist()
        sizes = np.repeat(self.block_bytes, s.shape[1]).tolist()
        if job.ready is not None:
            job.stream.wait_event(job.ready)
        # expect: KVG001, KVG002
        err, *_ = drv.cuMemcpyBatchAsync(dsts, srcs, sizes, len(sizes), [self.attrs], [0], 1,
                                         job.stream.cuda_stream)
        if err != drv.CUresult.CUDA_SUCCESS:
            raise RuntimeError(f"cuMemcpyBatchAsync failed for job {job.job_id}: {err}")
        job.done.record(job.stream)
        self.issued.append(job)

    def submit(self, job: TransferJob) -> None:
        asyncio.run_coroutine_threadsafe(self._queue.put(job), self._loop)

    def shutdown(self) -> None:
        asyncio.run_coroutine_threadsafe(self._queue.put(None), self._loop)
        self._thread.join(timeout=5.0)
