"""Device -> pinned host block transfers."""

from __future__ import annotations

from cuda.bindings import driver

from kvbm.cuda_utils import check


def _location(kind: driver.CUmemLocationType, ordinal: int) -> driver.CUmemLocation:
    loc = driver.CUmemLocation()
    loc.type = kind
    loc.id = ordinal
    return loc


class CudaTransferEngine:
    def __init__(self, device_ordinal: int, stream: driver.CUstream) -> None:
        self.stream = stream
        self._attrs = self._d2h_attributes(device_ordinal)

    @staticmethod
    def _d2h_attributes(device_ordinal: int) -> driver.CUmemcpyAttributes:
        attrs = driver.CUmemcpyAttributes()
        attrs.srcAccessOrder = driver.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_ANY
        attrs.srcLocHint = _location(
            driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE, device_ordinal
        )
        attrs.dstLocHint = _location(driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_HOST, 0)
        attrs.flags = driver.CUmemcpyFlags.CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE
        return attrs

    def copy_block(self, dst_host: int, src_device: int, nbytes: int) -> None:
        # expect: KVG001
        check(driver.cuMemcpyDtoHAsync(dst_host, driver.CUdeviceptr(src_device), nbytes, self.stream))

    def copy_blocks(self, pairs: list[tuple[int, int]], nbytes: int) -> None:
        dsts = [driver.CUdeviceptr(dst) for dst, _ in pairs]
        srcs = [driver.CUdeviceptr(src) for _, src in pairs]
        sizes = [nbytes] * len(pairs)
        check(
            # expect: KVG002
            driver.cuMemcpyBatchAsync(
                dsts, srcs, sizes, len(pairs), [self._attrs], [0], 1, self.stream
            )
        )
