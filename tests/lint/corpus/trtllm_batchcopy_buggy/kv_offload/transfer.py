from typing import List

from cuda.bindings import driver

from kv_offload.constants import (
    LOC_DEVICE,
    LOC_HOST,
    MAX_COPIES_PER_BATCH,
    OFFLOAD_SRC_ACCESS_ORDER,
    ONBOARD_SRC_ACCESS_ORDER,
)
from kv_offload.driver_utils import check_cu, create_event, create_stream, make_memcpy_attrs, order_after


class BatchedBlockTransfer:
    """Offload/onboard of KV blocks with one cuMemcpyBatchAsync per MAX_COPIES_PER_BATCH blocks."""

    def __init__(self, device_id: int):
        self._stream = create_stream()
        self._ready = create_event()
        self._done = create_event()
        self._offload_attrs = make_memcpy_attrs(OFFLOAD_SRC_ACCESS_ORDER, LOC_DEVICE, LOC_HOST, device_id)
        self._onboard_attrs = make_memcpy_attrs(ONBOARD_SRC_ACCESS_ORDER, LOC_HOST, LOC_DEVICE, device_id)

    def offload_blocks(self, dev_ptrs: List[driver.CUdeviceptr], host_ptrs: List[driver.CUdeviceptr],
                       block_bytes: int, compute_stream) -> driver.CUevent:
        order_after(self._ready, compute_stream, self._stream)
        for lo in range(0, len(dev_ptrs), MAX_COPIES_PER_BATCH):
            hi = min(lo + MAX_COPIES_PER_BATCH, len(dev_ptrs))
            # expect: KVG002
            check_cu(driver.cuMemcpyBatchAsync(host_ptrs[lo:hi], dev_ptrs[lo:hi], [block_bytes] * (hi - lo), hi - lo, [self._offload_attrs], [0], 1, self._stream))
        check_cu(driver.cuEventRecord(self._done, self._stream))
        return self._done

    def onboard_blocks(self, host_ptrs: List[driver.CUdeviceptr], dev_ptrs: List[driver.CUdeviceptr],
                       block_bytes: int, compute_stream) -> driver.CUevent:
        order_after(self._ready, compute_stream, self._stream)
        for lo in range(0, len(dev_ptrs), MAX_COPIES_PER_BATCH):
            hi = min(lo + MAX_COPIES_PER_BATCH, len(dev_ptrs))
            check_cu(driver.cuMemcpyBatchAsync(dev_ptrs[lo:hi], host_ptrs[lo:hi], [block_bytes] * (hi - lo), hi - lo, [self._onboard_attrs], [0], 1, self._stream))
        check_cu(driver.cuEventRecord(self._done, self._stream))
        return self._done
