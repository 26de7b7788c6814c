import logging
from typing import Sequence

from cuda.bindings import driver

from .constants import OFFLOAD_SRC_ACCESS_ORDER, ONBOARD_SRC_ACCESS_ORDER
from .cuda_utils import check, make_attrs, new_event, new_stream

logger = logging.getLogger(__name__)

_DEVICE = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
_HOST = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_HOST


class BlockMover:
    """Moves whole KV blocks; device pool and host tiers share the same block size."""

    def __init__(self, device_pool_ptr: int, spill_ptr: int, prefetch_ptr: int,
                 block_bytes: int, device_ordinal: int = 0):
        self._pool = device_pool_ptr
        self._spill = spill_ptr
        self._prefetch = prefetch_ptr
        self._block_bytes = block_bytes
        self._d2h_stream = new_stream()
        self._h2d_stream = new_stream()
        self._compute_ready = new_event()
        self.offload_done = new_event()
        self.onboard_done = new_event()
        self._offload_attrs = make_attrs(OFFLOAD_SRC_ACCESS_ORDER, _DEVICE, _HOST, device_ordinal)
        self._onboard_attrs = make_attrs(ONBOARD_SRC_ACCESS_ORDER, _HOST, _DEVICE, device_ordinal)

    def _ptrs(self, base: int, indices: Sequence[int]) -> list[int]:
        return [base + i * self._block_bytes for i in indices]

    def offload(self, pairs: Sequence[tuple[int, int]], compute_stream: driver.CUstream) -> None:
        """pairs: (block_id, spill_slot). Compute waits for the copies before reusing the blocks."""
        blocks, slots = zip(*pairs)
        srcs = self._ptrs(self._pool, blocks)
        dsts = self._ptrs(self._spill, slots)
        sizes = [self._block_bytes] * len(pairs)
        check(driver.cuEventRecord(self._compute_ready, compute_stream))
        check(driver.cuStreamWaitEvent(self._d2h_stream, self._compute_ready, 0))
        check(driver.cuMemcpyBatchAsync(dsts, srcs, sizes, len(sizes), [self._offload_attrs], [0], 1, self._d2h_stream))
        check(driver.cuEventRecord(self.offload_done, self._d2h_stream))
        check(driver.cuStreamWaitEvent(compute_stream, self.offload_done, 0))

    def onboard(self, pairs: Sequence[tuple[int, int]], compute_stream: driver.CUstream) -> None:
        """pairs: (prefetch_slot, block_id). Compute waits for the loads before reading the blocks."""
        slots, blocks = zip(*pairs)
        srcs = self._ptrs(self._prefetch, slots)
        dsts = self._ptrs(self._pool, blocks)
        sizes = [self._block_bytes] * len(pairs)
        check(driver.cuEventRecord(self._compute_ready, compute_stream))
        check(driver.cuStreamWaitEvent(self._h2d_stream, self._compute_ready, 0))
        check(driver.cuMemcpyBatchAsync(dsts, srcs, sizes, len(sizes), [self._onboard_attrs], [0], 1, self._h2d_stream))
        check(driver.cuEventRecord(self.onboard_done, self._h2d_stream))
        check(driver.cuStreamWaitEvent(compute_stream, self.onboard_done, 0))

    def synchronize(self) -> None:
        check(driver.cuStreamSynchronize(self._d2h_stream))
        check(driver.cuStreamSynchronize(self._h2d_stream))
