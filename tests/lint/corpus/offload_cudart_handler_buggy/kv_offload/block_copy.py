import ctypes

import numpy as np
import torch

from . import cudart
from .constants import CUDA_MEMCPY_DEVICE_TO_HOST, CUDA_MEMCPY_HOST_TO_DEVICE


def store_blocks(gpu_tensor: torch.Tensor, cpu_tensor: torch.Tensor, src_to_dst: np.ndarray, stream: int) -> int:
    """Copy GPU blocks into pinned CPU blocks on `stream`. Returns bytes enqueued."""
    block_bytes = gpu_tensor.stride(0)
    src_base, dst_base = gpu_tensor.data_ptr(), cpu_tensor.data_ptr()
    for src_block, dst_block in src_to_dst.tolist():
        # expect: KVG001
        err = cudart.lib.cudaMemcpyAsync(
            ctypes.c_void_p(dst_base + dst_block * block_bytes),
            ctypes.c_void_p(src_base + src_block * block_bytes),
            block_bytes,
            CUDA_MEMCPY_DEVICE_TO_HOST,
            ctypes.c_void_p(stream),
        )
        cudart.check(err, "cudaMemcpyAsync(D2H)")
    return block_bytes * len(src_to_dst)


def load_blocks(cpu_tensor: torch.Tensor, gpu_tensor: torch.Tensor, src_to_dst: np.ndarray, stream: int) -> int:
    """Copy pinned CPU blocks back into GPU blocks on `stream`. Returns bytes enqueued."""
    block_bytes = gpu_tensor.stride(0)
    src_base, dst_base = cpu_tensor.data_ptr(), gpu_tensor.data_ptr()
    for src_block, dst_block in src_to_dst.tolist():
        # expect: KVG004
        err = cudart.lib.cudaMemcpyAsync(
            ctypes.c_void_p(dst_base + dst_block * block_bytes),
            ctypes.c_void_p(src_base + src_block * block_bytes),
            block_bytes,
            CUDA_MEMCPY_HOST_TO_DEVICE,
            ctypes.c_void_p(stream),
        )
        cudart.check(err, "cudaMemcpyAsync(H2D)")
    return block_bytes * len(src_to_dst)
