import ctypes
import logging
import queue
import socket
import threading
from concurrent.futures import Future
from dataclasses import dataclass, field

from cuda.bindings import driver

from . import constants
from .cuda_utils import check, create_event, create_stream, host_alloc
from .layout import KvPoolLayout

logger = logging.getLogger(__name__)


@dataclass
class TransferJob:
    request_id: int
    block_ids: list[int]
    ready: driver.CUevent
    future: Future = field(default_factory=Future)


class KvCacheSender:

    def __init__(self, layout: KvPoolLayout, conn: socket.socket,
                 device_ordinal: int):
        self._layout = layout
        self._conn = conn
        self._ctx = check(driver.cuCtxGetCurrent())
        self._stream = create_stream()
        self._done = create_event()
        self._staging = host_alloc(constants.STAGING_BYTES)
        self._attrs = driver.CUmemcpyAttributes()
        self._attrs.srcAccessOrder = constants.GATHER_SRC_ACCESS_ORDER
        self._attrs.srcLocHint.type = (
            driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE)
        self._attrs.srcLocHint.id = device_ordinal
        self._attrs.dstLocHint.type = (
            driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_HOST)
        self._attrs.flags = constants.GATHER_FLAGS
        self._jobs: "queue.Queue[TransferJob | None]" = queue.Queue(
            maxsize=constants.SEND_QUEUE_DEPTH)
        self._thread = threading.Thread(target=self._run,
                                        name="kv-cache-sender",
                                        daemon=True)
        self._thread.start()

    def submit(self, request_id: int, block_ids: list[int],
               ready: driver.CUevent) -> Future:
        job = TransferJob(request_id, block_ids, ready)
        self._jobs.put(job)
        return job.future

    def close(self) -> None:
        self._jobs.put(None)
        self._thread.join()

    def _run(self) -> None:
        check(driver.cuCtxSetCurrent(self._ctx))
        while (job := self._jobs.get()) is not None:
            try:
                nbytes = self._gather(job)
                payload = (ctypes.c_char * nbytes).from_address(self._staging)
                self._conn.sendall(memoryview(payload))
                job.future.set_result(nbytes)
            except Exception as exc:  # surfaced through the future
                logger.exception("send of request %d failed", job.request_id)
                job.future.set_exception(exc)
            finally:
                check(driver.cuEventDestroy(job.ready))

    def _gather(self, job: TransferJob) -> int:
        srcs, sizes = self._layout.spans(job.block_ids)
        dsts, offset = [], 0
        for size in sizes:
            dsts.append(self._staging + offset)
            offset += size
        if offset > constants.STAGING_BYTES:
            raise ValueError(f"request {job.request_id} needs {offset} bytes")
        check(driver.cuStreamWaitEvent(self._stream, job.ready, 0))
        if len(srcs) == 1:
            check(
                driver.cuMemcpyDtoHAsync(dsts[0], driver.CUdeviceptr(srcs[0]),
                                         sizes[0], self._stream))
        else:
            result = driver.cuMemcpyBatchAsync(
                [driver.CUdeviceptr(d) for d in dsts],
                [driver.CUdeviceptr(s) for s in srcs], sizes, len(srcs),
                [self._attrs], [0], 1, self._stream)
            check(result)
        check(driver.cuEventRecord(self._done, self._stream))
        check(driver.cuEventSynchronize(self._done))
        return offset
