import logging
from typing import Sequence

from cuda.bindings import driver

from .constants import KV_OFFLOAD_SRC_ORDER, KV_ONBOARD_SRC_ORDER, MAX_COPIES_PER_BATCH
from .cuda_utils import check, create_event, create_stream, make_memcpy_attrs

logger = logging.getLogger("tensorrt_llm")


class BatchedBlockCopier:
    """Issues block copies between tiers on a private non-blocking stream."""

    def __init__(self):
        self.stream = create_stream()
        self._offload_attrs = make_memcpy_attrs(KV_OFFLOAD_SRC_ORDER)
        self._onboard_attrs = make_memcpy_attrs(KV_ONBOARD_SRC_ORDER)

    def _issue(self, dsts: Sequence[int], srcs: Sequence[int], nbytes: int, attrs) -> None:
        for lo in range(0, len(dsts), MAX_COPIES_PER_BATCH):
            hi = min(lo + MAX_COPIES_PER_BATCH, len(dsts))
            d = [driver.CUdeviceptr(p) for p in dsts[lo:hi]]
            s = [driver.CUdeviceptr(p) for p in srcs[lo:hi]]
            sizes = [nbytes] * (hi - lo)
            # expect: KVG002
            res = driver.cuMemcpyBatchAsync(d, s, sizes, hi - lo, [attrs], [0], 1, self.stream)
            check(res)

    def offload(self, host_ptrs, dev_ptrs, nbytes: int, after: driver.CUevent) -> driver.CUevent:
        check(driver.cuStreamWaitEvent(self.stream, after, 0))
        self._issue(host_ptrs, dev_ptrs, nbytes, self._offload_attrs)
        done = create_event()
        check(driver.cuEventRecord(done, self.stream))
        return done

    def onboard(self, dev_ptrs, host_ptrs, nbytes: int, after: driver.CUevent) -> driver.CUevent:
        check(driver.cuStreamWaitEvent(self.stream, after, 0))
        self._issue(dev_ptrs, host_ptrs, nbytes, self._onboard_attrs)
        done = create_event()
        check(driver.cuEventRecord(done, self.stream))
        return done
