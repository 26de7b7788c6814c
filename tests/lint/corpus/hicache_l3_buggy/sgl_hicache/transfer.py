from __future__ import annotations

from dataclasses import dataclass
from typing import List, Sequence

from cuda.bindings import driver

from sgl_hicache.constants import D2H_SRC_ACCESS_ORDER


def _check(result):
    err = result[0]
    if err != driver.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"CUDA driver call failed: {err}")
    return result[1] if len(result) == 2 else result[1:]


@dataclass
class TransferCompletion:
    start_event: driver.CUevent
    finish_event: driver.CUevent
    num_pages: int


class L2TransferEngine:
    """Moves KV pages from the device pool into the pinned host pool."""

    def __init__(self, device_id: int):
        self.device_id = device_id
        self.write_stream = _check(
            driver.cuStreamCreate(driver.CUstream_flags.CU_STREAM_NON_BLOCKING.value)
        )
        self._attrs = self._build_attrs()

    def _build_attrs(self) -> List[driver.CUmemcpyAttributes]:
        attr = driver.CUmemcpyAttributes()
        attr.srcAccessOrder = D2H_SRC_ACCESS_ORDER
        attr.srcLocHint.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
        attr.srcLocHint.id = self.device_id
        attr.dstLocHint.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_HOST
        attr.flags = driver.CUmemcpyFlags.CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE
        return [attr]

    def _new_event(self) -> driver.CUevent:
        return _check(
            driver.cuEventCreate(driver.CUevent_flags.CU_EVENT_DISABLE_TIMING.value)
        )

    def submit_device_to_host(
        self,
        dst_ptrs: Sequence[int],
        src_ptrs: Sequence[int],
        page_nbytes: int,
        producer_stream: int,
    ) -> TransferCompletion:
        start_event = self._new_event()
        finish_event = self._new_event()
        _check(driver.cuEventRecord(start_event, driver.CUstream(producer_stream)))
        _check(driver.cuStreamWaitEvent(self.write_stream, start_event, 0))

        dsts = [driver.CUdeviceptr(p) for p in dst_ptrs]
        srcs = [driver.CUdeviceptr(p) for p in src_ptrs]
        sizes = [page_nbytes] * len(dsts)
        # expect: KVG002
        err, fail_idx = driver.cuMemcpyBatchAsync(
            dsts, srcs, sizes, len(dsts), self._attrs, [0], len(self._attrs), self.write_stream
        )
        if err != driver.CUresult.CUDA_SUCCESS:
            raise RuntimeError(f"L2 backup failed at copy {fail_idx}: {err}")

        _check(driver.cuEventRecord(finish_event, self.write_stream))
        return TransferCompletion(start_event, finish_event, len(dsts))

    def is_done(self, event: driver.CUevent) -> bool:
        return driver.cuEventQuery(event)[0] == driver.CUresult.CUDA_SUCCESS

    def wait(self, event: driver.CUevent) -> None:
        _check(driver.cuEventSynchronize(event))

    def release(self, completion: TransferCompletion) -> None:
        driver.cuEventDestroy(completion.start_event)
        driver.cuEventDestroy(completion.finish_event)
