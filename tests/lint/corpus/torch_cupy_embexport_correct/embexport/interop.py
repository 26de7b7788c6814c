from __future__ import annotations

import cupy as cp
import torch


def cupy_stream_for(stream: torch.cuda.Stream) -> cp.cuda.ExternalStream:
    """Wrap a torch stream so CuPy work is queued on the very same CUDA stream."""
    return cp.cuda.ExternalStream(stream.cuda_stream, stream.device.index)


def as_cupy(t: torch.Tensor, stream: torch.cuda.Stream) -> cp.ndarray:
    """Zero-copy view of ``t`` through DLPack, exchanged on ``stream``."""
    if not t.is_cuda:
        raise ValueError("expected a CUDA tensor")
    with cupy_stream_for(stream):
        return cp.from_dlpack(t.detach())
