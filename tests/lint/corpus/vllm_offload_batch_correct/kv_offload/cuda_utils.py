from typing import Sequence

from cuda.bindings import driver

from kv_offload.constants import OFFLOAD_COPY_FLAGS, OFFLOAD_SRC_ACCESS_ORDER


class CudaError(RuntimeError):
    pass


def check(result):
    err, *rest = result if isinstance(result, tuple) else (result,)
    if err != driver.CUresult.CUDA_SUCCESS:
        raise CudaError(f"CUDA driver call failed: {err}")
    return rest[0] if len(rest) == 1 else tuple(rest)


def build_d2h_attributes(device_ordinal: int) -> driver.CUmemcpyAttributes:
    attrs = driver.CUmemcpyAttributes()
    attrs.srcAccessOrder = OFFLOAD_SRC_ACCESS_ORDER
    attrs.flags = OFFLOAD_COPY_FLAGS
    attrs.srcLocHint.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
    attrs.srcLocHint.id = device_ordinal
    attrs.dstLocHint.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_HOST
    return attrs


def block_pointers(base_ptr: int, block_bytes: int, block_ids: Sequence[int]):
    return [base_ptr + b * block_bytes for b in block_ids]
