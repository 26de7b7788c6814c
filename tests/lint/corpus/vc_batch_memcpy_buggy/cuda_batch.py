"""Thin helpers around cuda-python's driver API for batched block copies."""

from typing import List, Sequence, Tuple

import torch
from cuda.bindings import driver

from .config import COPY_FLAGS, CPU, GPU, SRC_ACCESS_ORDER


def check(err, what: str) -> None:
    if err != driver.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"{what} failed: {err}")


def _location(medium: str, device_id: int) -> "driver.CUmemLocation":
    loc = driver.CUmemLocation()
    if medium == GPU:
        loc.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
        loc.id = device_id
    else:
        loc.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_HOST
        loc.id = 0
    return loc


def make_attrs(src: str, dst: str, device_id: int) -> "driver.CUmemcpyAttributes":
    attrs = driver.CUmemcpyAttributes()
    attrs.srcAccessOrder = SRC_ACCESS_ORDER[(src, dst)]
    attrs.srcLocHint = _location(src, device_id)
    attrs.dstLocHint = _location(dst, device_id)
    attrs.flags = COPY_FLAGS
    return attrs


def block_pointers(dst_caches: Sequence[torch.Tensor], dst_ids: List[int],
                   src_caches: Sequence[torch.Tensor], src_ids: List[int]
                   ) -> Tuple[list, list, list]:
    """Per layer and block: (dst ptr, src ptr, size). Caches are
    [num_blocks, ...] contiguous tensors with identical block sizes."""
    dsts, srcs, sizes = [], [], []
    for dst_cache, src_cache in zip(dst_caches, src_caches):
        block_bytes = dst_cache[0].numel() * dst_cache.element_size()
        for d, s in zip(dst_ids, src_ids):
            dsts.append(driver.CUdeviceptr(dst_cache.data_ptr() + d * block_bytes))
            srcs.append(driver.CUdeviceptr(src_cache.data_ptr() + s * block_bytes))
            sizes.append(block_bytes)
    return dsts, srcs, sizes
