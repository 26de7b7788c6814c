import threading
from dataclasses import dataclass

from numba import cuda


@dataclass
class WorkerContext:
    stream: object
    done: object
    d_weights: object


class DeviceContextRegistry:
    """One stream, one completion event and one weight copy per worker thread."""

    def __init__(self, device_id, weights):
        self._device_id = device_id
        self._weights = weights
        self._local = threading.local()

    def get(self) -> WorkerContext:
        ctx = getattr(self._local, "ctx", None)
        if ctx is None:
            cuda.select_device(self._device_id)
            stream = cuda.stream()
            d_weights = cuda.to_device(self._weights, stream=stream)
            stream.synchronize()
            ctx = WorkerContext(stream=stream, done=cuda.event(timing=False), d_weights=d_weights)
            self._local.ctx = ctx
        return ctx
