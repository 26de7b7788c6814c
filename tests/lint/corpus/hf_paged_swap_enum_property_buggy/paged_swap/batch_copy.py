"""Thin wrapper over cudaMemcpyBatchAsync with per-direction attributes."""

import functools

from cuda.bindings import runtime as cudart

from .directions import SwapDirection


def _location(kind, ordinal):
    loc = cudart.cudaMemLocation()
    loc.type = kind
    loc.id = ordinal
    return loc


@functools.lru_cache(maxsize=None)
def copy_attributes(direction: SwapDirection, device_ordinal: int):
    attrs = cudart.cudaMemcpyAttributes()
    attrs.srcAccessOrder = direction.src_access_order
    attrs.srcLocHint = _location(direction.src_location_type, device_ordinal)
    attrs.dstLocHint = _location(direction.dst_location_type, device_ordinal)
    attrs.flags = cudart.cudaMemcpyFlags.cudaMemcpyFlagPreferOverlapWithCompute
    return attrs


def memcpy_batch(direction, dsts, srcs, sizes, device_ordinal, stream):
    if not sizes:
        return
    attrs = copy_attributes(direction, device_ordinal)
    # expect: KVG002
    err, *_ = cudart.cudaMemcpyBatchAsync(dsts, srcs, sizes, len(sizes), [attrs], [0], 1, stream.cuda_stream)
    if err != cudart.cudaError_t.cudaSuccess:
        raise RuntimeError(f"cudaMemcpyBatchAsync ({direction.value}) failed: {err}")
