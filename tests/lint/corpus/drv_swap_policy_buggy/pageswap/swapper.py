"""Swaps fixed-size KV pages between a device arena and a pinned host arena with the
driver's batched copy (CUDA 12.8+)."""
import logging
from typing import List, Sequence, Tuple

from cuda.bindings import driver

from .drv import new_event, new_stream, ok
from .policy import SwapPolicy

log = logging.getLogger(__name__)


def _attrs(order, overlap: bool) -> driver.CUmemcpyAttributes:
    a = driver.CUmemcpyAttributes()
    a.srcAccessOrder = order
    a.flags = (driver.CUmemcpyFlags.CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE if overlap
               else driver.CUmemcpyFlags.CU_MEMCPY_FLAG_DEFAULT)
    return a


class PageSwapper:
    def __init__(self, compute_stream, num_dev_pages: int, num_host_pages: int,
                 page_bytes: int, policy: SwapPolicy = SwapPolicy()):
        self.compute = compute_stream            # CUstream the attention kernels run on
        self.page_bytes = page_bytes
        self.policy = policy
        self.dev_base = int(ok(driver.cuMemAlloc(num_dev_pages * page_bytes)))
        self.host_base = int(ok(driver.cuMemHostAlloc(
            num_host_pages * page_bytes, driver.CU_MEMHOSTALLOC_PORTABLE)))
        self.swap_stream = new_stream()
        self._compute_mark = new_event()
        self._swap_done = new_event()
        self._out_attrs = _attrs(policy.swap_out_order, policy.overlap_with_compute)
        self._in_attrs = _attrs(policy.swap_in_order, policy.overlap_with_compute)

    def dev_page(self, i: int) -> int:
        return self.dev_base + i * self.page_bytes

    def host_page(self, i: int) -> int:
        return self.host_base + i * self.page_bytes

    def _fence_compute(self) -> None:
        ok(driver.cuEventRecord(self._compute_mark, self.compute))
        ok(driver.cuStreamWaitEvent(self.swap_stream, self._compute_mark, 0))

    def _submit(self, dsts: List[int], srcs: List[int], attrs) -> None:
        n = len(dsts)
        # expect: KVG002
        ok(driver.cuMemcpyBatchAsync(dsts, srcs, [self.page_bytes] * n, n,
                                     [attrs], [0], 1, self.swap_stream))

    def swap_out(self, pairs: Sequence[Tuple[int, int]]) -> None:
        """(device page, host page) pairs, device -> host."""
        self._fence_compute()
        if len(pairs) < self.policy.min_batch:
            for d, h in pairs:
                ok(driver.cuMemcpyDtoHAsync(self.host_page(h), self.dev_page(d),
                                            self.page_bytes, self.swap_stream))
        else:
            self._submit([self.host_page(h) for _, h in pairs],
                         [self.dev_page(d) for d, _ in pairs], self._out_attrs)
        ok(driver.cuEventRecord(self._swap_done, self.swap_stream))

    def swap_in(self, pairs: Sequence[Tuple[int, int]]) -> None:
        """(host page, device page) pairs, host -> device; attention waits for them."""
        self._fence_compute()
        if len(pairs) < self.policy.min_batch:
            for h, d in pairs:
                ok(driver.cuMemcpyHtoDAsync(self.dev_page(d), self.host_page(h),
                                            self.page_bytes, self.swap_stream))
        else:
            self._submit([self.dev_page(d) for _, d in pairs],
                         [self.host_page(h) for h, _ in pairs], self._in_attrs)
        ok(driver.cuEventRecord(self._swap_done, self.swap_stream))
        ok(driver.cuStreamWaitEvent(self.compute, self._swap_done, 0))

    def wait(self) -> None:
        ok(driver.cuEventSynchronize(self._swap_done))

    def close(self) -> None:
        ok(driver.cuStreamSynchronize(self.swap_stream))
        ok(driver.cuMemFree(self.dev_base))
        ok(driver.cuMemFreeHost(self.host_base))
        for ev in (self._compute_mark, self._swap_done):
            ok(driver.cuEventDestroy(ev))
        ok(driver.cuStreamDestroy(self.swap_stream))
