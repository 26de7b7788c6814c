"""One cuMemcpyBatchAsync per call (CUDA 12.8+, cuda.bindings.driver)."""
from cuda.bindings import driver


def _check(result):
    err = result[0]
    if err != driver.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"CUDA driver error: {err}")
    return result[1:]


def _location(on_device, device_id):
    loc = driver.CUmemLocation()
    if on_device:
        loc.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
        loc.id = device_id
    else:
        loc.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_HOST
        loc.id = 0
    return loc


def memcpy_batch_async(dst_ptrs, src_ptrs, nbytes, stream, src_access_order, *, to_host, device_id, overlap):
    attrs = driver.CUmemcpyAttributes()
    attrs.srcAccessOrder = src_access_order
    attrs.srcLocHint = _location(to_host, device_id)
    attrs.dstLocHint = _location(not to_host, device_id)
    attrs.flags = (
        driver.CUmemcpyFlags.CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE
        if overlap
        else driver.CUmemcpyFlags.CU_MEMCPY_FLAG_DEFAULT
    )
    count = len(src_ptrs)
    _check(
        # expect: KVG002
        driver.cuMemcpyBatchAsync(
            dst_ptrs, src_ptrs, [nbytes] * count, count, [attrs], [0], 1, stream.cuda_stream
        )
    )
