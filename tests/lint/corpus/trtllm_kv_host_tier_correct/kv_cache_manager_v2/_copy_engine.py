import atexit
from typing import Optional

from cuda.bindings import driver as drv

from kv_cache_manager_v2._common import (
    BATCH_COPY_MIN_DRIVER_VERSION,
    MIN_BATCH_COPY_TASKS,
    CacheLevel,
    CopyTask,
    _check,
)
from kv_cache_manager_v2._cuda_utils import driver_version

_LOC_TYPE = {
    CacheLevel.GPU_MEMORY: drv.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE,
    CacheLevel.HOST_MEMORY: drv.CUmemLocationType.CU_MEM_LOCATION_TYPE_HOST,
}


class _CopyEngine:
    def __init__(self):
        self._has_batch_api = (
            hasattr(drv, "cuMemcpyBatchAsync")
            and driver_version() >= BATCH_COPY_MIN_DRIVER_VERSION
        )

    @staticmethod
    def _make_attrs(dst_level: CacheLevel, src_level: CacheLevel, device: int):
        attrs = drv.CUmemcpyAttributes()
        attrs.srcAccessOrder = drv.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_STREAM
        attrs.srcLocHint.type = _LOC_TYPE[src_level]
        attrs.srcLocHint.id = device
        attrs.dstLocHint.type = _LOC_TYPE[dst_level]
        attrs.dstLocHint.id = device
        attrs.flags = drv.CUmemcpyFlags.CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE
        return attrs

    def transfer(
        self,
        dst_level: CacheLevel,
        src_level: CacheLevel,
        num_bytes: int,
        tasks: list[CopyTask],
        stream: drv.CUstream,
        wait_event: Optional[drv.CUevent] = None,
        device: int = 0,
    ) -> None:
        if not tasks:
            return
        if wait_event is not None:
            _check(drv.cuStreamWaitEvent(stream, wait_event, 0))
        if self._has_batch_api and len(tasks) >= MIN_BATCH_COPY_TASKS:
            attrs = self._make_attrs(dst_level, src_level, device)
            dsts = [t.dst for t in tasks]
            srcs = [t.src for t in tasks]
            sizes = [num_bytes] * len(tasks)
            _check(drv.cuMemcpyBatchAsync(dsts, srcs, sizes, len(tasks), [attrs], [0], 1, stream))
            return
        for task in tasks:
            if dst_level is CacheLevel.GPU_MEMORY:
                _check(drv.cuMemcpyHtoDAsync(task.dst, task.src, num_bytes, stream))
            else:
                _check(drv.cuMemcpyDtoHAsync(task.dst, task.src, num_bytes, stream))

    def close(self) -> None:
        self._has_batch_api = False


_copy_engine = _CopyEngine()
atexit.register(_copy_engine.close)


def batched_copy(
    dst_level: CacheLevel,
    src_level: CacheLevel,
    num_bytes: int,
    tasks: list[CopyTask],
    stream: drv.CUstream,
    wait_event: Optional[drv.CUevent] = None,
) -> None:
    _copy_engine.transfer(dst_level, src_level, num_bytes, tasks, stream, wait_event)
