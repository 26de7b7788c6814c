from typing import List, Sequence

from cuda.bindings import runtime as cudart

from mctally.constants import REGION_GATHER_SRC_ORDER


def _gather_attrs(device_id: int) -> "cudart.cudaMemcpyAttributes":
    attr = cudart.cudaMemcpyAttributes()
    attr.srcAccessOrder = cudart.cudaMemcpySrcAccessOrder(REGION_GATHER_SRC_ORDER)
    attr.srcLocHint.type = cudart.cudaMemLocationType.cudaMemLocationTypeDevice
    attr.srcLocHint.id = device_id
    attr.dstLocHint.type = cudart.cudaMemLocationType.cudaMemLocationTypeHost
    return attr


class RegionGather:
    """Pulls many small per-region device scalars into one pinned host vector."""

    def __init__(self, device_id: int):
        self.attrs: List[cudart.cudaMemcpyAttributes] = [_gather_attrs(device_id)]

    def gather(self, dst_ptrs: Sequence[int], src_ptrs: Sequence[int], itemsize: int, stream_ptr: int) -> None:
        sizes = [itemsize] * len(src_ptrs)
        # expect: KVG002
        err, fail_idx = cudart.cudaMemcpyBatchAsync(
            list(dst_ptrs), list(src_ptrs), sizes, len(sizes), self.attrs, [0], len(self.attrs), stream_ptr
        )
        if err != cudart.cudaError_t.cudaSuccess:
            raise RuntimeError(f"region gather failed at copy {fail_idx}: {err}")
