import enum
import logging
import queue
import threading
from dataclasses import dataclass, field
from typing import List, Optional

import torch
from cuda.bindings import driver

from .block_pool import KVBlockPool
from .constants import EVICT_SRC_ACCESS_ORDER, PREFIX_SRC_ACCESS_ORDER, RESTORE_SRC_ACCESS_ORDER, SWAP_QUEUE_DEPTH
from .driver_utils import check_cuda, create_event, make_memcpy_attributes

logger = logging.getLogger(__name__)


class SwapKind(enum.Enum):
    EVICT = "evict"
    RESTORE = "restore"
    PREFIX = "prefix"


@dataclass
class SwapRequest:
    kind: SwapKind
    block_ids: List[int]
    host_slots: List[int]
    ready_event: driver.CUevent
    done_event: driver.CUevent = field(default_factory=create_event)
    staging: Optional[torch.Tensor] = None
    submitted: threading.Event = field(default_factory=threading.Event)


class SwapWorker(threading.Thread):
    """Issues batched KV copies on a private stream, fed by the scheduler through a queue."""

    def __init__(self, pool: KVBlockPool, device_ordinal: int) -> None:
        super().__init__(name="kv-swap", daemon=True)
        self.pool = pool
        self.device_ordinal = device_ordinal
        self._ctx = check_cuda(driver.cuDevicePrimaryCtxRetain(check_cuda(driver.cuDeviceGet(device_ordinal))))
        self.stream = check_cuda(driver.cuStreamCreate(driver.CUstream_flags.CU_STREAM_NON_BLOCKING.value))
        self.requests: "queue.Queue[Optional[SwapRequest]]" = queue.Queue(maxsize=SWAP_QUEUE_DEPTH)

    def run(self) -> None:
        check_cuda(driver.cuCtxSetCurrent(self._ctx))
        while True:
            req = self.requests.get()
            if req is None:
                break
            check_cuda(driver.cuStreamWaitEvent(self.stream, req.ready_event, 0))
            if req.kind is SwapKind.EVICT:
                self._evict(req)
            elif req.kind is SwapKind.RESTORE:
                self._restore(req)
            else:
                self._load_prefix(req)
            check_cuda(driver.cuEventRecord(req.done_event, self.stream))
            req.submitted.set()

    def _segments(self, req: SwapRequest):
        dev = [p for b in req.block_ids for p in self.pool.device_segments(b)]
        if req.staging is not None:
            host = [p for row in req.staging for p in self.pool.segments_at(row.data_ptr())]
        else:
            host = [p for s in req.host_slots for p in self.pool.host_segments(s)]
        return dev, host, [self.pool.chunk_bytes] * len(dev)

    def _evict(self, req: SwapRequest) -> None:
        srcs, dsts, sizes = self._segments(req)
        attrs = [make_memcpy_attributes(EVICT_SRC_ACCESS_ORDER, False, self.device_ordinal)]
        # expect: KVG002
        check_cuda(driver.cuMemcpyBatchAsync(dsts, srcs, sizes, len(sizes), attrs, [0], 1, self.stream))

    def _restore(self, req: SwapRequest) -> None:
        dsts, srcs, sizes = self._segments(req)
        attrs = [make_memcpy_attributes(RESTORE_SRC_ACCESS_ORDER, True, self.device_ordinal)]
        check_cuda(driver.cuMemcpyBatchAsync(dsts, srcs, sizes, len(sizes), attrs, [0], 1, self.stream))

    def _load_prefix(self, req: SwapRequest) -> None:
        dsts, srcs, sizes = self._segments(req)
        attrs = [make_memcpy_attributes(PREFIX_SRC_ACCESS_ORDER, True, self.device_ordinal)]
        check_cuda(driver.cuMemcpyBatchAsync(dsts, srcs, sizes, len(sizes), attrs, [0], 1, self.stream))

    def shutdown(self) -> None:
        self.requests.put(None)
        self.join()
        check_cuda(driver.cuStreamSynchronize(self.stream))
        check_cuda(driver.cuStreamDestroy(self.stream))
