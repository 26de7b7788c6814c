"""cudaMemcpyBatchAsync helpers (cuda-python runtime bindings)."""

from __future__ import annotations

import torch
from cuda.bindings import runtime as cudart


def _loc(on_device: bool, device: int) -> cudart.cudaMemLocation:
    loc = cudart.cudaMemLocation()
    if on_device:
        loc.type = cudart.cudaMemLocationType.cudaMemLocationTypeDevice
        loc.id = device
    else:
        loc.type = cudart.cudaMemLocationType.cudaMemLocationTypeHost
    return loc


def make_batch_attrs(
    src_access_order=cudart.cudaMemcpySrcAccessOrder.cudaMemcpySrcAccessOrderStream,
    src_on_device: bool = True,
    device: int = 0,
) -> cudart.cudaMemcpyAttributes:
    attrs = cudart.cudaMemcpyAttributes()
    attrs.srcAccessOrder = src_access_order
    attrs.srcLocHint = _loc(src_on_device, device)
    attrs.dstLocHint = _loc(not src_on_device, device)
    attrs.flags = cudart.cudaMemcpyFlags.cudaMemcpyFlagPreferOverlapWithCompute
    return attrs


def layer_block_spans(src_layers, dst_layers, src_ids, dst_ids):
    srcs, dsts, sizes = [], [], []
    for src, dst in zip(src_layers, dst_layers):
        nbytes = src[0].numel() * src.element_size()
        for s, d in zip(src_ids, dst_ids):
            srcs.append(src[s].data_ptr())
            dsts.append(dst[d].data_ptr())
            sizes.append(nbytes)
    return srcs, dsts, sizes


def batch_copy(dsts, srcs, sizes, attrs, stream: torch.cuda.Stream) -> None:
    # expect: KVG002
    (err, fail_idx) = cudart.cudaMemcpyBatchAsync(
        dsts, srcs, sizes, len(sizes), [attrs], [0], 1, stream.cuda_stream
    )
    if err != cudart.cudaError_t.cudaSuccess:
        raise RuntimeError(f"cudaMemcpyBatchAsync: {err} at copy {fail_idx}")
