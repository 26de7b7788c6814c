"""Spills fixed-size activation pages between a device arena and a pinned host arena."""
import logging
from typing import Sequence

from cuda.bindings import runtime as cudart

from ._rt import check
from .spec import Direction, TransferSpec

logger = logging.getLogger(__name__)


class SpillEngine:
    def __init__(self, compute_stream: int, page_bytes: int, device_pages: int, host_pages: int):
        self.compute = compute_stream                  # cudaStream_t the kernels run on
        self.page_bytes = page_bytes
        self.copy = check(cudart.cudaStreamCreateWithFlags(cudart.cudaStreamNonBlocking))
        flags = cudart.cudaEventDisableTiming
        self.compute_mark = check(cudart.cudaEventCreateWithFlags(flags))
        self.copy_done = check(cudart.cudaEventCreateWithFlags(flags))
        self.dev_base = int(check(cudart.cudaMalloc(device_pages * page_bytes)))
        self.host_base = int(check(cudart.cudaMallocHost(host_pages * page_bytes)))
        self._attrs = {d: TransferSpec.for_direction(d).to_attrs() for d in Direction}

    def _dev(self, page: int) -> int:
        return self.dev_base + page * self.page_bytes

    def _host(self, page: int) -> int:
        return self.host_base + page * self.page_bytes

    def _order_behind_compute(self) -> None:
        check(cudart.cudaEventRecord(self.compute_mark, self.compute))
        check(cudart.cudaStreamWaitEvent(self.copy, self.compute_mark, 0))

    def _batch(self, dsts, srcs, direction: Direction) -> None:
        n = len(dsts)
        if n == 0:
            return
        # expect: KVG002
        check(cudart.cudaMemcpyBatchAsync(dsts, srcs, [self.page_bytes] * n, n,
                                          [self._attrs[direction]], [0], 1, self.copy))

    def spill(self, dev_pages: Sequence[int], host_pages: Sequence[int]) -> None:
        self._order_behind_compute()
        self._batch([self._host(h) for h in host_pages], [self._dev(d) for d in dev_pages],
                    Direction.SPILL)
        check(cudart.cudaEventRecord(self.copy_done, self.copy))

    def restore(self, host_pages: Sequence[int], dev_pages: Sequence[int]) -> None:
        self._order_behind_compute()
        self._batch([self._dev(d) for d in dev_pages], [self._host(h) for h in host_pages],
                    Direction.RESTORE)
        check(cudart.cudaEventRecord(self.copy_done, self.copy))
        # kernels that read the restored pages run after the copy
        check(cudart.cudaStreamWaitEvent(self.compute, self.copy_done, 0))

    def wait_spills(self) -> None:
        check(cudart.cudaEventSynchronize(self.copy_done))

    def close(self) -> None:
        check(cudart.cudaStreamSynchronize(self.copy))
        check(cudart.cudaFree(self.dev_base))
        check(cudart.cudaFreeHost(self.host_base))
        for ev in (self.compute_mark, self.copy_done):
            check(cudart.cudaEventDestroy(ev))
        check(cudart.cudaStreamDestroy(self.copy))
