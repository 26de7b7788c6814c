# SPDX-License-Identifier: Apache-2.0
import ctypes
import logging
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass

from . import cudart
from .cudart import check, cudaMemcpyAttributes

logger = logging.getLogger(__name__)


@dataclass
class StoreJob:
    req_id: str
    gpu_ptrs: list[int]
    host_ptrs: list[int]
    block_bytes: int
    compute_event: cudart.cudaEvent_t
    done_event: cudart.cudaEvent_t


@dataclass
class LoadJob:
    req_id: str
    host_ptrs: list[int]
    staging_ptrs: list[int]
    block_bytes: int
    compute_event: cudart.cudaEvent_t
    done_event: cudart.cudaEvent_t


class CpuOffloadEngine:
    """Runs block copies on dedicated non-blocking streams from one worker thread."""

    def __init__(self, lib: ctypes.CDLL, device_id: int):
        self.lib = lib
        self.device_id = device_id
        self.store_stream = cudart.new_stream(lib)
        self.load_stream = cudart.new_stream(lib)
        self.executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="kv-offload")

    def submit_store(self, job: StoreJob) -> Future:
        return self.executor.submit(self._run_store, job)

    def submit_load(self, job: LoadJob) -> Future:
        return self.executor.submit(self._run_load, job)

    def _fence(self, stream: cudart.cudaStream_t, event: cudart.cudaEvent_t) -> None:
        check(self.lib.cudaStreamWaitEvent(stream, event, 0))

    def _store_attrs(self) -> ctypes.Array:
        attr = cudaMemcpyAttributes()
        attr.srcAccessOrder = cudart.cudaMemcpySrcAccessOrderStream
        attr.srcLocHint.type = cudart.cudaMemLocationTypeDevice
        attr.srcLocHint.id = self.device_id
        attr.dstLocHint.type = cudart.cudaMemLocationTypeHost
        attr.flags = cudart.cudaMemcpyFlagPreferOverlapWithCompute
        return (cudaMemcpyAttributes * 1)(attr)

    def _run_store(self, job: StoreJob) -> None:
        n = len(job.gpu_ptrs)
        dsts = (ctypes.c_void_p * n)(*job.host_ptrs)
        srcs = (ctypes.c_void_p * n)(*job.gpu_ptrs)
        sizes = (ctypes.c_size_t * n)(*([job.block_bytes] * n))
        attrs_idxs = (ctypes.c_size_t * 1)(0)
        fail_idx = ctypes.c_size_t(0)
        self._fence(self.store_stream, job.compute_event)
        check(self.lib.cudaMemcpyBatchAsync(dsts, srcs, sizes, n, self._store_attrs(), attrs_idxs, 1, ctypes.byref(fail_idx), self.store_stream))
        check(self.lib.cudaEventRecord(job.done_event, self.store_stream))
        logger.debug("Store of %d blocks for %s enqueued", n, job.req_id)

    def _run_load(self, job: LoadJob) -> None:
        self._fence(self.load_stream, job.compute_event)
        for host_ptr, staging_ptr in zip(job.host_ptrs, job.staging_ptrs):
            check(self.lib.cudaMemcpyAsync(staging_ptr, host_ptr, job.block_bytes, cudart.cudaMemcpyHostToDevice, self.load_stream))
        check(self.lib.cudaEventRecord(job.done_event, self.load_stream))
        logger.debug("Load of %d blocks for %s enqueued", len(job.host_ptrs), job.req_id)

    def shutdown(self) -> None:
        self.executor.shutdown(wait=True)
