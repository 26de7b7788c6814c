import ctypes
from typing import List, Sequence, Tuple

import torch

from kv_swap.constants import (
    MEM_LOCATION_TYPE_DEVICE,
    MEM_LOCATION_TYPE_HOST,
    MEMCPY_FLAG_DEFAULT,
    MEMCPY_KIND_H2D,
    MEMCPY_SRC_ORDER,
)
from kv_swap.cudart import CUDART, check, cudaMemcpyAttributes, cudaMemLocation


def _block_bytes(t: torch.Tensor) -> int:
    return t.stride(0) * t.element_size()


def swap_out_blocks(
    gpu_layers: Sequence[torch.Tensor],
    cpu_layers: Sequence[torch.Tensor],
    mapping: List[Tuple[int, int]],
    stream_ptr: int,
) -> None:
    n = len(mapping) * len(gpu_layers)
    if n == 0:
        return
    dsts = (ctypes.c_void_p * n)()
    srcs = (ctypes.c_void_p * n)()
    sizes = (ctypes.c_size_t * n)()
    i = 0
    for gpu_t, cpu_t in zip(gpu_layers, cpu_layers):
        nbytes = _block_bytes(gpu_t)
        for src_block, dst_block in mapping:
            srcs[i] = gpu_t.data_ptr() + src_block * nbytes
            dsts[i] = cpu_t.data_ptr() + dst_block * nbytes
            sizes[i] = nbytes
            i += 1
    attrs = cudaMemcpyAttributes()
    attrs.srcAccessOrder = MEMCPY_SRC_ORDER
    attrs.srcLocHint = cudaMemLocation(MEM_LOCATION_TYPE_DEVICE, gpu_layers[0].device.index)
    attrs.dstLocHint = cudaMemLocation(MEM_LOCATION_TYPE_HOST, 0)
    attrs.flags = MEMCPY_FLAG_DEFAULT
    attr_idx = (ctypes.c_size_t * 1)(0)
    fail_idx = ctypes.c_size_t(0)
    # expect: KVG002
    check(CUDART.cudaMemcpyBatchAsync(dsts, srcs, sizes, n, ctypes.byref(attrs), attr_idx, 1, ctypes.byref(fail_idx), ctypes.c_void_p(stream_ptr)))


def swap_in_blocks(
    cpu_layers: Sequence[torch.Tensor],
    gpu_layers: Sequence[torch.Tensor],
    mapping: List[Tuple[int, int]],
    stream_ptr: int,
) -> None:
    for cpu_t, gpu_t in zip(cpu_layers, gpu_layers):
        nbytes = _block_bytes(gpu_t)
        for src_block, dst_block in mapping:
            dst = ctypes.c_void_p(gpu_t.data_ptr() + dst_block * nbytes)
            src = ctypes.c_void_p(cpu_t.data_ptr() + src_block * nbytes)
            # expect: KVG004
            check(CUDART.cudaMemcpyAsync(dst, src, nbytes, MEMCPY_KIND_H2D, ctypes.c_void_p(stream_ptr)))
