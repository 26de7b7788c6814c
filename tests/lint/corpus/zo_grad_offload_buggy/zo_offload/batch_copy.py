"""Thin wrapper over cuMemcpyBatchAsync for device-to-host gradient staging."""
from typing import Sequence

import torch
from cuda.bindings import driver


def make_d2h_attrs(device_index: int, src_order, flags=0) -> driver.CUmemcpyAttributes:
    attr = driver.CUmemcpyAttributes()
    attr.srcAccessOrder = src_order
    attr.srcLocHint.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
    attr.srcLocHint.id = device_index
    attr.dstLocHint.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_HOST
    attr.dstLocHint.id = 0
    attr.flags = flags
    return attr


def batch_copy_d2h(
    dst: Sequence[torch.Tensor],
    src: Sequence[torch.Tensor],
    attr: driver.CUmemcpyAttributes,
    stream: torch.cuda.Stream,
) -> None:
    dsts = [driver.CUdeviceptr(t.data_ptr()) for t in dst]
    srcs = [driver.CUdeviceptr(t.data_ptr()) for t in src]
    sizes = [t.numel() * t.element_size() for t in src]
    handle = driver.CUstream(stream.cuda_stream)
    # expect: KVG002
    err, fail_idx = driver.cuMemcpyBatchAsync(dsts, srcs, sizes, len(sizes), [attr], [0], 1, handle)
    if err != driver.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"cuMemcpyBatchAsync failed at copy {fail_idx}: {err}")
