"""The calling thread's current CUDA stream, read from PyTorch as a raw handle."""

from __future__ import annotations

from collections.abc import Callable


def current_stream_reader(device_index: int) -> Callable[[], int]:
    """A function returning the calling thread's current stream on the device, as a raw handle.

    PyTorch's private `_cuda_getCurrentRawStream` reads it in one call; `current_stream()`
    builds a Stream object per call, so it is only the fallback. The default stream's handle
    is 0, which the driver resolves in the calling thread's current context: a thread whose
    current device is another would have the guard record on that device's stream, so the
    reader refuses it.
    """
    import torch  # here, not at module level: the guard's module imports no torch of its own

    raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
    if raw is None:
        device = torch.device("cuda", device_index)

        def raw(_: int) -> int:
            return int(torch.cuda.current_stream(device).cuda_stream)

    def read() -> int:
        handle: int = raw(device_index)
        if handle == 0 and torch.cuda.current_device() != device_index:
            raise RuntimeError(
                f"kvguard copies on cuda:{device_index}, but the requesting thread's current "
                f"device is cuda:{torch.cuda.current_device()} and its stream there is the "
                "default one, which the driver would take on the other device: call "
                f"torch.cuda.set_device({device_index}) on this thread, or request from a "
                "non-default stream"
            )
        return handle

    return read
