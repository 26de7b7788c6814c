"""A small CUDA stream wrapper used by the cache manager's transfer engine."""
from typing import Optional

import torch


class CudaStream:
    """Owns (or borrows) a torch stream and orders it against other streams.

    Cross-stream dependencies go through events, never through a device-wide
    synchronize, so transfers overlap compute.
    """

    def __init__(self, stream: Optional[torch.cuda.Stream] = None,
                 device: Optional[torch.device] = None, priority: int = 0) -> None:
        if stream is None:
            stream = torch.cuda.Stream(device=device, priority=priority)
        self._stream = stream

    @classmethod
    def current(cls) -> "CudaStream":
        """The calling thread's current stream (the one the model runs on)."""
        return cls(torch.cuda.current_stream())

    @property
    def torch_stream(self) -> torch.cuda.Stream:
        return self._stream

    @property
    def handle(self) -> int:
        return self._stream.cuda_stream

    def record(self) -> torch.cuda.Event:
        event = torch.cuda.Event()
        event.record(self._stream)
        return event

    def wait_for(self, other: "CudaStream") -> None:
        """Work queued on self after this call runs after work queued on other so far."""
        if other.handle == self.handle:
            return
        event = torch.cuda.Event()
        event.record(other.torch_stream)
        self._stream.wait_event(event)

    def synchronize(self) -> None:
        self._stream.synchronize()

    def __repr__(self) -> str:
        return f"CudaStream(handle={self.handle:#x})"
