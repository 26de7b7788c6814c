from __future__ import annotations

import queue
import threading
from collections import deque
from dataclasses import dataclass

import torch
from cuda.bindings import driver

from vllm.logger import init_logger

from .constants import (
    COPY_THREAD_NAME,
    CPU_TO_GPU,
    GPU_TO_CPU,
    JOB_QUEUE_MAXSIZE,
    LOAD_SRC_ACCESS_ORDER,
    STORE_SRC_ACCESS_ORDER,
)
from .cuda_utils import check_cuda, make_copy_attributes
from .scheduler import OffloadingConnectorMetadata, TransferSpec

logger = init_logger(__name__)


@dataclass
class TransferJob:
    req_id: str
    direction: str
    spec: TransferSpec
    ready_event: driver.CUevent


class OffloadingConnectorWorker:
    def __init__(self, gpu_caches: list[torch.Tensor], cpu_caches: list[torch.Tensor], device_id: int):
        self.gpu_caches = gpu_caches  # [num_blocks, 2, block_size, heads, dim] per layer
        self.cpu_caches = cpu_caches  # pinned, same layout
        self.device_id = device_id
        self.block_bytes = gpu_caches[0][0].nbytes
        self._copy_stream = check_cuda(
            driver.cuStreamCreate(driver.CUstream_flags.CU_STREAM_NON_BLOCKING.value)
        )
        self._jobs: "queue.Queue[TransferJob | None]" = queue.Queue(JOB_QUEUE_MAXSIZE)
        self._inflight: deque[tuple[str, driver.CUevent]] = deque()
        self._inflight_lock = threading.Lock()
        self._thread = threading.Thread(target=self._copy_loop, name=COPY_THREAD_NAME, daemon=True)
        self._thread.start()

    def _new_event(self) -> driver.CUevent:
        return check_cuda(driver.cuEventCreate(driver.CUevent_flags.CU_EVENT_DISABLE_TIMING.value))

    def _submit(self, req_id: str, direction: str, spec: TransferSpec) -> None:
        ready = self._new_event()
        compute_stream = driver.CUstream(torch.cuda.current_stream().cuda_stream)
        check_cuda(driver.cuEventRecord(ready, compute_stream))
        self._jobs.put(TransferJob(req_id, direction, spec, ready))

    def start_load_kv(self, metadata: OffloadingConnectorMetadata) -> None:
        for req_id, spec in metadata.reqs_to_load.items():
            self._submit(req_id, CPU_TO_GPU, spec)

    def start_store_kv(self, metadata: OffloadingConnectorMetadata) -> None:
        for req_id, spec in metadata.reqs_to_store.items():
            self._submit(req_id, GPU_TO_CPU, spec)

    def _pointers(self, job: TransferJob) -> tuple[list, list, list[int]]:
        dsts, srcs = [], []
        for gpu, cpu in zip(self.gpu_caches, self.cpu_caches):
            for g, c in zip(job.spec.gpu_block_ids, job.spec.cpu_block_ids):
                gptr = driver.CUdeviceptr(gpu.data_ptr() + g * self.block_bytes)
                cptr = driver.CUdeviceptr(cpu.data_ptr() + c * self.block_bytes)
                src, dst = (gptr, cptr) if job.direction == GPU_TO_CPU else (cptr, gptr)
                srcs.append(src)
                dsts.append(dst)
        return dsts, srcs, [self.block_bytes] * len(dsts)

    def _copy_loop(self) -> None:
        check_cuda(driver.cuCtxSetCurrent(check_cuda(driver.cuDevicePrimaryCtxRetain(self.device_id))))
        while True:
            job = self._jobs.get()
            if job is None:
                break
            if job.direction == GPU_TO_CPU:
                attr = make_copy_attributes(STORE_SRC_ACCESS_ORDER, False, self.device_id)
            else:
                attr = make_copy_attributes(LOAD_SRC_ACCESS_ORDER, True, self.device_id)
            dsts, srcs, sizes = self._pointers(job)
            check_cuda(driver.cuStreamWaitEvent(self._copy_stream, job.ready_event, 0))
            result = driver.cuMemcpyBatchAsync(
                dsts, srcs, sizes, len(sizes), [attr], [0], 1, self._copy_stream
            )
            check_cuda(result)
            done = self._new_event()
            check_cuda(driver.cuEventRecord(done, self._copy_stream))
            check_cuda(driver.cuEventDestroy(job.ready_event))
            with self._inflight_lock:
                self._inflight.append((job.req_id, done))

    def get_finished(self) -> set[str]:
        finished = set()
        with self._inflight_lock:
            while self._inflight:
                req_id, done = self._inflight[0]
                if driver.cuEventQuery(done)[0] != driver.CUresult.CUDA_SUCCESS:
                    break
                self._inflight.popleft()
                check_cuda(driver.cuEventDestroy(done))
                finished.add(req_id)
        return finished

    def shutdown(self) -> None:
        self._jobs.put(None)
        self._thread.join()
