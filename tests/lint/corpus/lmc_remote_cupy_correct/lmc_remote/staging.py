from __future__ import annotations

from typing import Optional

import cupy
import cupyx
import numpy as np
import torch

_TORCH_TO_NP = {torch.float16: np.float16, torch.bfloat16: np.uint16, torch.float32: np.float32}


def as_cupy(tensor: torch.Tensor) -> cupy.ndarray:
    """Zero-copy cupy view over a contiguous torch CUDA tensor."""
    nbytes = tensor.numel() * tensor.element_size()
    mem = cupy.cuda.UnownedMemory(tensor.data_ptr(), nbytes, tensor)
    return cupy.ndarray(
        tuple(tensor.shape), dtype=_TORCH_TO_NP[tensor.dtype], memptr=cupy.cuda.MemoryPointer(mem, 0)
    )


class CupyStagingBuffer:
    """Device-to-host staging on a private cupy stream."""

    def __init__(self):
        self.stream = cupy.cuda.Stream(non_blocking=True)

    def stage(self, tensor: torch.Tensor, ready: Optional[cupy.cuda.Event]):
        src = as_cupy(tensor)
        host = cupyx.empty_pinned(src.shape, dtype=src.dtype)
        if ready is not None:
            self.stream.wait_event(ready)
        src.get(stream=self.stream, out=host, blocking=False)
        done = cupy.cuda.Event(disable_timing=True)
        done.record(self.stream)
        return host, done

    def fetch_small(self, tensor: torch.Tensor, ready: cupy.cuda.Event) -> np.ndarray:
        src = as_cupy(tensor)
        self.stream.wait_event(ready)
        return cupy.asnumpy(src, stream=self.stream)
