from typing import Sequence

from cuda.bindings import driver as cu
from cuda.bindings import runtime as cudart

from .constants import GATHER_ACCESS_ORDER, GATHER_FLAGS, H2D
from .cuda_utils import CUASSERT


def _gather_attributes(device_ordinal: int) -> cu.CUmemcpyAttributes:
    attrs = cu.CUmemcpyAttributes()
    attrs.srcAccessOrder = GATHER_ACCESS_ORDER
    attrs.flags = GATHER_FLAGS
    attrs.srcLocHint.type = cu.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
    attrs.srcLocHint.id = device_ordinal
    attrs.dstLocHint.type = cu.CUmemLocationType.CU_MEM_LOCATION_TYPE_HOST
    return attrs


def gather_blocks(host_base: int, block_ptrs: Sequence[int], block_bytes: int,
                  stream: cu.CUstream, device_ordinal: int) -> int:
    """Pack device blocks back to back into the host bounce buffer."""
    count = len(block_ptrs)
    dsts = [host_base + i * block_bytes for i in range(count)]
    sizes = [block_bytes] * count
    attrs = _gather_attributes(device_ordinal)
    CUASSERT(cu.cuMemcpyBatchAsync(dsts, list(block_ptrs), sizes, count,
                                   [attrs], [0], 1, stream))
    return count * block_bytes


def scatter_blocks(block_ptrs: Sequence[int], host_base: int, block_bytes: int,
                   stream: cu.CUstream) -> None:
    for index, block_ptr in enumerate(block_ptrs):
        CUASSERT(cudart.cudaMemcpyAsync(block_ptr, host_base + index * block_bytes,
                                        block_bytes, H2D, int(stream)))
