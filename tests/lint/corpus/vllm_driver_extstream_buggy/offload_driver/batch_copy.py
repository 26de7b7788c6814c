"""Block copies through the driver's cuMemcpyBatchAsync (CUDA 12.8+): one attribute record per
direction. A GPU source is read in stream order; a pinned host source may be read any time."""

from typing import List

from cuda.bindings import driver

from offload_driver.cuda_utils import check

_ORDER = driver.CUmemcpySrcAccessOrder


def make_attributes(src_is_device: bool, device_ordinal: int) -> driver.CUmemcpyAttributes:
    dev = driver.CUmemLocation()
    dev.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
    dev.id = device_ordinal
    host = driver.CUmemLocation()
    host.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_HOST
    attrs = driver.CUmemcpyAttributes()
    if src_is_device:
        attrs.srcAccessOrder = _ORDER.CU_MEMCPY_SRC_ACCESS_ORDER_STREAM
        attrs.srcLocHint, attrs.dstLocHint = dev, host
    else:
        attrs.srcAccessOrder = _ORDER.CU_MEMCPY_SRC_ACCESS_ORDER_ANY
        attrs.srcLocHint, attrs.dstLocHint = host, dev
    attrs.flags = driver.CUmemcpyFlags.CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE
    return attrs


class BatchCopier:
    def __init__(self, src_is_device: bool, device_ordinal: int):
        self.attrs = make_attributes(src_is_device, device_ordinal)

    def copy(self, dsts: List[int], srcs: List[int], sizes: List[int], stream_handle: int) -> None:
        if not sizes:
            return
        # expect: KVG004
        check(driver.cuMemcpyBatchAsync(dsts, srcs, sizes, len(sizes), [self.attrs], [0], 1, stream_handle))
