"""The calling thread's current CUDA stream, read from PyTorch as a raw handle."""

from __future__ import annotations

from collections.abc import Callable


def current_stream_reader(device_index: int) -> Callable[[], int]:
    """A function returning the calling thread's current stream on the device, as a raw handle.

    PyTorch's private `_cuda_getCurrentRawStream` reads it in one call; `current_stream()`
    builds a Stream object per call, so it is only the fallback.
    """
    import torch  # here, not at module level: the guard imports this module and stays torch-free

    raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
    if raw is not None:
        return lambda: raw(device_index)
    device = torch.device("cuda", device_index)
    return lambda: int(torch.cuda.current_stream(device).cuda_stream)
