"""Batched device->host copies for the many small activations of a layer group.

One ``cuMemcpyBatchAsync`` replaces dozens of tiny ``cudaMemcpyAsync`` launches.
"""

from cuda.bindings import driver


def _check(result):
    err = result[0]
    if err != driver.CUresult.CUDA_SUCCESS:
        _, name = driver.cuGetErrorName(err)
        raise RuntimeError(f"CUDA driver call failed: {name}")
    return result[1:]


def _d2h_attributes(src_device: int) -> "driver.CUmemcpyAttributes":
    attrs = driver.CUmemcpyAttributes()
    attrs.srcAccessOrder = driver.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_ANY
    src_loc = driver.CUmemLocation()
    src_loc.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
    src_loc.id = src_device
    attrs.srcLocHint = src_loc
    dst_loc = driver.CUmemLocation()
    dst_loc.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_HOST
    attrs.dstLocHint = dst_loc
    attrs.flags = driver.CUmemcpyFlags.CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE
    return attrs


def memcpy_d2h_batch_async(dst_ptrs, src_ptrs, sizes, stream, src_device: int) -> None:
    """Copy ``sizes[i]`` bytes from device ``src_ptrs[i]`` to pinned host ``dst_ptrs[i]`` on ``stream``."""
    if not sizes:
        return
    attrs = _d2h_attributes(src_device)
    dsts = [driver.CUdeviceptr(p) for p in dst_ptrs]
    srcs = [driver.CUdeviceptr(p) for p in src_ptrs]
    cu_stream = driver.CUstream(stream.cuda_stream)
    # expect: KVG001, KVG002
    _check(driver.cuMemcpyBatchAsync(dsts, srcs, list(sizes), len(sizes), [attrs], [0], 1, cu_stream))
