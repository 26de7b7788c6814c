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
    if kind is Move.OFFLOAD:
        # the model may still be writing the blocks it hands us: read in stream order
        return _Order.cudaMemcpySrcAccessOrderStream
    # Onboard sources are host blocks whose offload has completed; compaction only moves
    # blocks the scheduler has paused. Let the copy engine pick them up early.
    return _Order.cudaMemcpySrcAccessOrderAny


def attributes(kind: Move, device: int) -> cudart.cudaMemcpyAttributes:
    attrs = cudart.cudaMemcpyAttributes()
    attrs.srcAccessOrder = source_order(kind)
    src_dev = -1 if kind is Move.ONBOARD else device
    dst_dev = -1 if kind is Move.OFFLOAD else device
    attrs.srcLocHint = location(src_dev)
    attrs.dstLocHint = location(dst_dev)
    attrs.flags = cudart.cudaMemcpyFlags.cudaMemcpyFlagPreferOverlapWithCompute
    return attrs
