"""Thin wrapper over cuMemcpyBatchAsync for many small tensors at once."""
from typing import List, Sequence, Tuple

import torch
from cuda.bindings import driver

from .constants import INPUT_COPY_SRC_ORDER, OUTPUT_COPY_SRC_ORDER


def _attrs(order, src_on_device: bool, device_index: int) -> driver.CUmemcpyAttributes:
    attr = driver.CUmemcpyAttributes()
    attr.srcAccessOrder = order
    attr.flags = driver.CUmemcpyFlags.CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE
    loc = driver.CUmemLocation()
    loc.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE if src_on_device else driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_HOST
    loc.id = device_index if src_on_device else 0
    attr.srcLocHint = loc
    return attr


def _check(result) -> None:
    err = result[0]
    if err != driver.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"cuMemcpyBatchAsync failed: {err}")


def copy_outputs_to_host(pairs: Sequence[Tuple[torch.Tensor, torch.Tensor]], stream: torch.cuda.Stream) -> None:
    """pairs: (pinned host dst, device src)."""
    dsts = [dst.data_ptr() for dst, _ in pairs]
    srcs = [src.data_ptr() for _, src in pairs]
    sizes = [src.numel() * src.element_size() for _, src in pairs]
    attr = _attrs(OUTPUT_COPY_SRC_ORDER, True, pairs[0][1].device.index)
    # expect: KVG002
    _check(driver.cuMemcpyBatchAsync(dsts, srcs, sizes, len(pairs), [attr], [0], 1, stream.cuda_stream))


def copy_inputs_to_device(host_arrays: List[torch.Tensor], device: torch.device, stream: torch.cuda.Stream) -> List[torch.Tensor]:
    outs = [torch.empty(h.shape, dtype=h.dtype, device=device) for h in host_arrays]
    sizes = [h.numel() * h.element_size() for h in host_arrays]
    attr = _attrs(INPUT_COPY_SRC_ORDER, False, device.index)
    _check(driver.cuMemcpyBatchAsync(
        [o.data_ptr() for o in outs], [h.data_ptr() for h in host_arrays], sizes, len(outs), [attr], [0], 1, stream.cuda_stream
    ))
    return outs
