"""Moves KV blocks: offload (GPU -> pinned host), onboard (pinned host -> GPU), and
compaction (GPU -> GPU, packing live blocks to the front of the pool so the tail can be
released to other tenants)."""
import enum

from cuda.bindings import runtime as cudart

from .cuda_rt import location

_Order = cudart.cudaMemcpySrcAccessOrder


class Move(enum.Enum):
    OFFLOAD = "offload"
    ONBOARD = "onboard"
    COMPACT = "compact"


def source_order(kind: Move):
    if kind is Move.ONBOARD:
        # host blocks whose offload has completed: nothing writes them any more, so the
        # copy engine may pick them up early
        return _Order.cudaMemcpySrcAccessOrderAny
    # GPU sources (offload, compaction) may still have kernels queued that write them:
    # read in stream order, behind the wait on the compute stream
    return _Order.cudaMemcpySrcAccessOrderStream


def attributes(kind: Move, device: int) -> cudart.cudaMemcpyAttributes:
    attrs = cudart.cudaMemcpyAttributes()
    attrs.srcAccessOrder = source_order(kind)
    src_dev = -1 if kind is Move.ONBOARD else device
    dst_dev = -1 if kind is Move.OFFLOAD else device
    attrs.srcLocHint = location(src_dev)
    attrs.dstLocHint = location(dst_dev)
    attrs.flags = cudart.cudaMemcpyFlags.cudaMemcpyFlagPreferOverlapWithCompute
    return attrs
