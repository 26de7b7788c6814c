import logging
import queue
import threading
from dataclasses import dataclass
from typing import Any, List

from cuda.bindings import driver

from kv_offload.cuda_utils import build_d2h_attributes, check

logger = logging.getLogger(__name__)


@dataclass
class TransferJob:
    job_id: int
    src_ptrs: List[int]
    dst_ptrs: List[int]
    sizes: List[int]
    ready_event: Any


class OffloadCopyThread(threading.Thread):
    def __init__(self, jobs: "queue.Queue[TransferJob]", finished: "queue.Queue[int]", device_ordinal: int):
        super().__init__(name="kv-offload-copy", daemon=True)
        self.jobs = jobs
        self.finished = finished
        self.device_ordinal = device_ordinal
        self.stream = None
        self._stop = threading.Event()

    def run(self):
        ctx = check(driver.cuDevicePrimaryCtxRetain(self.device_ordinal))
        check(driver.cuCtxSetCurrent(ctx))
        self.stream = check(driver.cuStreamCreate(driver.CUstream_flags.CU_STREAM_NON_BLOCKING))
        attrs = build_d2h_attributes(self.device_ordinal)
        while not self._stop.is_set():
            try:
                job = self.jobs.get(timeout=0.5)
            except queue.Empty:
                continue
            check(driver.cuStreamWaitEvent(self.stream, job.ready_event, 0))
            count = len(job.sizes)
            # expect: KVG002
            check(driver.cuMemcpyBatchAsync(job.dst_ptrs, job.src_ptrs, job.sizes, count, [attrs], [0], 1, self.stream))
            check(driver.cuStreamSynchronize(self.stream))
            check(driver.cuEventDestroy(job.ready_event))
            self.finished.put(job.job_id)

    def stop(self):
        self._stop.set()
