"""Raw runtime copies, used instead of Tensor.copy_ to avoid per-call dispatcher overhead."""
from __future__ import annotations

import torch
from cuda import cudart


def _check(err: cudart.cudaError_t) -> None:
    if err != cudart.cudaError_t.cudaSuccess:
        _, msg = cudart.cudaGetErrorString(err)
        raise RuntimeError(f"CUDA runtime error: {msg.decode()}")


def memcpy_h2d_async(dst: torch.Tensor, src: torch.Tensor, stream: torch.cuda.Stream) -> None:
    nbytes = src.numel() * src.element_size()
    if dst.numel() * dst.element_size() != nbytes:
        raise ValueError(f"size mismatch: {tuple(dst.shape)} vs {tuple(src.shape)}")
    if not (dst.is_contiguous() and src.is_contiguous() and src.is_pinned()):
        raise ValueError("expert weights must be contiguous and the host copy pinned")
    (err,) = cudart.cudaMemcpyAsync(
        dst.data_ptr(),
        src.data_ptr(),
        nbytes,
        cudart.cudaMemcpyKind.cudaMemcpyHostToDevice,
        stream.cuda_stream,
    )
    _check(err)
