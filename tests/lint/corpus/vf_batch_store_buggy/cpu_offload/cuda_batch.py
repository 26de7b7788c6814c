"""Thin wrappers around cuda-python's cuMemcpyBatchAsync."""

from __future__ import annotations

import torch
from cuda.bindings import driver

from cpu_offload import envs


def _location(on_device: bool, device_id: int) -> driver.CUmemLocation:
    loc = driver.CUmemLocation()
    if on_device:
        loc.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
        loc.id = device_id
    else:
        loc.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_HOST
        loc.id = 0
    return loc


def make_memcpy_attributes(
    src_access_order, src_on_device: bool, device_id: int
) -> driver.CUmemcpyAttributes:
    """One attributes entry that applies to every copy of a batch."""
    attr = driver.CUmemcpyAttributes()
    attr.srcAccessOrder = src_access_order
    attr.srcLocHint = _location(src_on_device, device_id)
    attr.dstLocHint = _location(not src_on_device, device_id)
    if envs.PREFER_OVERLAP:
        attr.flags = driver.CUmemcpyFlags.CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE
    else:
        attr.flags = driver.CUmemcpyFlags.CU_MEMCPY_FLAG_DEFAULT
    return attr


def block_spans(
    src_tensors: list[torch.Tensor],
    dst_tensors: list[torch.Tensor],
    src_block_ids: list[int],
    dst_block_ids: list[int],
) -> tuple[list[int], list[int], list[int]]:
    """Flatten (layer, block) pairs into pointer/size arrays."""
    srcs: list[int] = []
    dsts: list[int] = []
    sizes: list[int] = []
    for src, dst in zip(src_tensors, dst_tensors):
        src_stride = src.stride(0) * src.element_size()
        dst_stride = dst.stride(0) * dst.element_size()
        payload = src[0].numel() * src.element_size()
        for s, d in zip(src_block_ids, dst_block_ids):
            srcs.append(src.data_ptr() + s * src_stride)
            dsts.append(dst.data_ptr() + d * dst_stride)
            sizes.append(payload)
    return srcs, dsts, sizes


def submit_batch(
    dsts: list[int],
    srcs: list[int],
    sizes: list[int],
    attr: driver.CUmemcpyAttributes,
    stream: torch.cuda.Stream,
) -> None:
    count = len(sizes)
    if count == 0:
        return
    if count > envs.MAX_BATCH_DESCRIPTORS:
        raise ValueError(f"batch of {count} copies exceeds the limit")
    # expect: KVG002
    err, fail_idx = driver.cuMemcpyBatchAsync(
        [driver.CUdeviceptr(p) for p in dsts],
        [driver.CUdeviceptr(p) for p in srcs],
        sizes,
        count,
        [attr],
        [0],
        1,
        driver.CUstream(stream.cuda_stream),
    )
    if err != driver.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"cuMemcpyBatchAsync failed: {err} (failIdx={fail_idx})")
