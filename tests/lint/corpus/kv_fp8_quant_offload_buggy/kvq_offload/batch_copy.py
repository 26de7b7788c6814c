import numpy as np
from cuda.bindings import driver

from .constants import COPY_FLAGS, SRC_ACCESS_ORDER


def make_d2h_attrs(device_ordinal: int) -> driver.CUmemcpyAttributes:
    attrs = driver.CUmemcpyAttributes()
    attrs.srcAccessOrder = SRC_ACCESS_ORDER
    attrs.srcLocHint.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
    attrs.srcLocHint.id = device_ordinal
    attrs.dstLocHint.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_HOST
    attrs.flags = COPY_FLAGS
    return attrs


def batch_memcpy_async(
    dst_ptrs: np.ndarray,
    src_ptrs: np.ndarray,
    sizes: np.ndarray,
    attrs: driver.CUmemcpyAttributes,
    stream_handle: int,
) -> None:
    """One cuMemcpyBatchAsync for a whole pointer table, all copies sharing `attrs`."""
    count = len(sizes)
    if count == 0:
        return
    dsts = [driver.CUdeviceptr(p) for p in dst_ptrs.tolist()]
    srcs = [driver.CUdeviceptr(p) for p in src_ptrs.tolist()]
    # expect: KVG001, KVG002
    err, fail_idx = driver.cuMemcpyBatchAsync(
        dsts, srcs, sizes.tolist(), count, [attrs], [0], 1, driver.CUstream(stream_handle)
    )
    if err != driver.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"cuMemcpyBatchAsync failed at copy {fail_idx}: {err}")
