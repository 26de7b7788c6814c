"""Host <-> device movement of weights and KV cache on raw CUDA streams."""

import ctypes
from typing import Optional

import torch

from . import cudart


def _nbytes(t: torch.Tensor) -> int:
    return t.numel() * t.element_size()


def load_to_device(dst: torch.Tensor, src: torch.Tensor, stream: Optional[ctypes.c_void_p]) -> None:
    assert dst.is_cuda and src.is_pinned()
    cudart.memcpy_async(dst.data_ptr(), src.data_ptr(), _nbytes(src), cudart.cudaMemcpyHostToDevice, stream)


def store_to_host(dst: torch.Tensor, src: torch.Tensor, stream: Optional[ctypes.c_void_p]) -> None:
    assert src.is_cuda and dst.is_pinned()
    cudart.memcpy_async(dst.data_ptr(), src.data_ptr(), _nbytes(src), cudart.cudaMemcpyDeviceToHost, stream)
