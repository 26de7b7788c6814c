"""Thin helpers over the CUDA driver batched memcpy used for weight snapshots."""
from dataclasses import dataclass, field
from typing import List

from cuda.bindings import driver

ACCESS_ORDER_STREAM = driver.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_STREAM
ACCESS_ORDER_DURING_API_CALL = driver.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_DURING_API_CALL
ACCESS_ORDER_ANY = driver.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_ANY


def check(result):
    err, *values = result
    if err != driver.CUresult.CUDA_SUCCESS:
        _, name = driver.cuGetErrorName(err)
        raise RuntimeError(f"CUDA driver call failed: {name.decode() if name else err}")
    if not values:
        return None
    return values[0] if len(values) == 1 else tuple(values)


@dataclass
class CopyPlan:
    """Flat list of (dst, src, nbytes) triples, built once and replayed every snapshot."""
    dsts: List[driver.CUdeviceptr] = field(default_factory=list)
    srcs: List[driver.CUdeviceptr] = field(default_factory=list)
    sizes: List[int] = field(default_factory=list)

    def add(self, dst_ptr: int, src_ptr: int, nbytes: int) -> None:
        self.dsts.append(driver.CUdeviceptr(dst_ptr))
        self.srcs.append(driver.CUdeviceptr(src_ptr))
        self.sizes.append(nbytes)

    def __len__(self) -> int:
        return len(self.sizes)


def _d2h_attributes(device_ordinal: int, src_access_order) -> driver.CUmemcpyAttributes:
    src_loc = driver.CUmemLocation()
    src_loc.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
    src_loc.id = device_ordinal
    dst_loc = driver.CUmemLocation()
    dst_loc.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_HOST
    dst_loc.id = 0
    attrs = driver.CUmemcpyAttributes()
    attrs.srcAccessOrder = src_access_order
    attrs.srcLocHint = src_loc
    attrs.dstLocHint = dst_loc
    attrs.flags = driver.CUmemcpyFlags.CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE
    return attrs


def batch_copy_d2h(plan: CopyPlan, stream: driver.CUstream, *, device_ordinal: int,
                   src_access_order=ACCESS_ORDER_STREAM) -> None:
    attrs = _d2h_attributes(device_ordinal, src_access_order)
    # expect: KVG002
    check(driver.cuMemcpyBatchAsync(plan.dsts, plan.srcs, plan.sizes, len(plan), [attrs], [0], 1, stream))
