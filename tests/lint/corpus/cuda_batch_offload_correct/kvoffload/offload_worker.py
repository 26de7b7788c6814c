# SPDX-License-Identifier: Apache-2.0
import queue
import threading
from dataclasses import dataclass, field
from typing import Callable, List

from cuda.bindings import driver

from kvoffload.constants import KV_OFFLOAD_FLAGS, KV_OFFLOAD_SRC_ORDER
from kvoffload.cuda_utils import check, create_stream, logger


@dataclass
class OffloadJob:
    job_id: int
    block_ids: List[int]
    srcs: List[int]
    dsts: List[int]
    sizes: List[int]
    ready_event: object
    host_extent: tuple
    on_complete: Callable[["OffloadJob"], None] = field(repr=False, default=None)


class OffloadWorker(threading.Thread):

    def __init__(self, context, device_ordinal):
        super().__init__(name="kv-offload", daemon=True)
        self._context = context
        self._device_ordinal = device_ordinal
        self._jobs = queue.Queue()
        self._stream = None

    def submit(self, job: OffloadJob):
        self._jobs.put(job)

    def stop(self):
        self._jobs.put(None)

    def _attributes(self):
        attrs = driver.CUmemcpyAttributes()
        attrs.srcAccessOrder = KV_OFFLOAD_SRC_ORDER
        attrs.srcLocHint.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
        attrs.srcLocHint.id = self._device_ordinal
        attrs.dstLocHint.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_HOST
        attrs.flags = KV_OFFLOAD_FLAGS
        return attrs

    def _execute(self, job: OffloadJob):
        check(driver.cuStreamWaitEvent(self._stream, job.ready_event, 0))
        attrs = self._attributes()
        check(driver.cuMemcpyBatchAsync(job.dsts, job.srcs, job.sizes, len(job.sizes), [attrs], [0], 1,
                                        self._stream))
        check(driver.cuStreamSynchronize(self._stream))

    def run(self):
        check(driver.cuCtxSetCurrent(self._context))
        self._stream = create_stream()
        while True:
            job = self._jobs.get()
            if job is None:
                break
            try:
                self._execute(job)
            except Exception:
                logger.exception("offload job %d failed", job.job_id)
            job.on_complete(job)
        check(driver.cuStreamDestroy(self._stream))
