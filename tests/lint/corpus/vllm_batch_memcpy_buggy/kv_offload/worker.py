# SPDX-License-Identifier: Apache-2.0
from collections import deque
from dataclasses import dataclass

import torch
from cuda.bindings import driver

from kv_offload.cuda_driver import (DriverEventPool, DriverStreamPool, check_cu,
                                    make_memcpy_attrs)
from kv_offload.mediums import BlockIDsLoadStoreSpec, TransferSpec
from vllm.logger import init_logger

logger = init_logger(__name__)


@dataclass
class Transfer:
    job_id: int
    stream: driver.CUstream
    ready_event: driver.CUevent
    done_event: driver.CUevent
    num_bytes: int


class BatchMemcpyOffloadingHandler:
    """Copies whole KV blocks GPU<->CPU with a single cuMemcpyBatchAsync per job.

    Jobs run in submission order: each job's stream waits for the previous
    job's done event.
    """

    def __init__(self, gpu_tensors: list[torch.Tensor], cpu_tensors: list[torch.Tensor],
                 gpu_to_cpu: bool, prefer_overlap: bool):
        assert len(gpu_tensors) == len(cpu_tensors) > 0
        self.gpu_to_cpu = gpu_to_cpu
        self.block_bytes = [t.shape[1] for t in gpu_tensors]
        gpu_bases = [t.data_ptr() for t in gpu_tensors]
        cpu_bases = [t.data_ptr() for t in cpu_tensors]
        self.src_bases = gpu_bases if gpu_to_cpu else cpu_bases
        self.dst_bases = cpu_bases if gpu_to_cpu else gpu_bases
        device_id = gpu_tensors[0].device.index or 0
        self.attrs = make_memcpy_attrs(gpu_to_cpu, device_id, prefer_overlap)
        self._streams = DriverStreamPool()
        self._events = DriverEventPool()
        self._transfers: deque[Transfer] = deque()
        self._done_by_job: dict[int, driver.CUevent] = {}

    def _build_batch(self, src_ids, dst_ids):
        srcs, dsts, sizes = [], [], []
        for src_base, dst_base, nbytes in zip(self.src_bases, self.dst_bases, self.block_bytes):
            for s, d in zip(src_ids.tolist(), dst_ids.tolist()):
                srcs.append(driver.CUdeviceptr(src_base + s * nbytes))
                dsts.append(driver.CUdeviceptr(dst_base + d * nbytes))
                sizes.append(nbytes)
        return srcs, dsts, sizes

    def transfer_async(self, job_id: int, spec: TransferSpec) -> bool:
        src_spec, dst_spec = spec
        assert isinstance(src_spec, BlockIDsLoadStoreSpec)
        assert isinstance(dst_spec, BlockIDsLoadStoreSpec)
        srcs, dsts, sizes = self._build_batch(src_spec.block_ids, dst_spec.block_ids)

        stream = self._streams.acquire()
        ready_event = self._events.acquire()
        done_event = self._events.acquire()
        compute = driver.CUstream(torch.cuda.current_stream().cuda_stream)
        check_cu(driver.cuEventRecord(ready_event, compute))
        check_cu(driver.cuStreamWaitEvent(stream, ready_event, 0))
        if self._transfers:
            check_cu(driver.cuStreamWaitEvent(stream, self._transfers[-1].done_event, 0))
        # expect: KVG002
        check_cu(driver.cuMemcpyBatchAsync(dsts, srcs, sizes, len(sizes), [self.attrs], [0], 1, stream))
        check_cu(driver.cuEventRecord(done_event, stream))

        self._done_by_job[job_id] = done_event
        self._transfers.append(Transfer(job_id, stream, ready_event, done_event, sum(sizes)))
        return True

    def get_finished(self) -> list[tuple[int, bool]]:
        finished = []
        while self._transfers:
            transfer = self._transfers[0]
            (err,) = driver.cuEventQuery(transfer.done_event)
            if err == driver.CUresult.CUDA_ERROR_NOT_READY:
                break
            self._transfers.popleft()
            finished.append((transfer.job_id, err == driver.CUresult.CUDA_SUCCESS))
            self._streams.release(transfer.stream)
            self._events.release(transfer.ready_event)
            self._events.release(transfer.done_event)
            del self._done_by_job[transfer.job_id]
        return finished

    def wait(self, job_ids: set[int]) -> None:
        for job_id in job_ids:
            event = self._done_by_job.get(job_id)
            if event is not None:
                check_cu(driver.cuEventSynchronize(event))
