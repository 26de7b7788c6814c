"""CuPy helpers for staging device KV pages through pinned host memory."""

import cupy
import cupyx
import numpy as np
import torch


def as_cupy(tensor: torch.Tensor) -> cupy.ndarray:
    return cupy.from_dlpack(tensor.detach())


def torch_current_stream() -> cupy.cuda.ExternalStream:
    return cupy.cuda.ExternalStream(torch.cuda.current_stream().cuda_stream)


def alloc_staging(num_pages: int, page_shape: tuple, dtype) -> np.ndarray:
    return cupyx.empty_pinned((num_pages, *page_shape), dtype=dtype)


def device_page_to_host(dev_page: cupy.ndarray, host_page: np.ndarray,
                        stream: cupy.cuda.Stream) -> None:
    cupy.asnumpy(dev_page, stream=stream, out=host_page, blocking=False)
