import queue
import threading
from dataclasses import dataclass, field
from typing import Any

import torch


@dataclass
class SwapOutRequest:
    param_id: int
    buffer_idx: int
    buffer: torch.Tensor
    aligned_numel: int
    path: str
    # recorded on the swap stream once the device->host copy into `buffer` is queued
    copy_done: Any
    done: threading.Event = field(default_factory=threading.Event)


class AioWriteThread(threading.Thread):
    """Drains swap-out requests to NVMe so the training thread never blocks on disk."""

    def __init__(self, aio_handle, on_complete):
        super().__init__(name="ds-nvme-swap-writer", daemon=True)
        self._handle = aio_handle
        self._on_complete = on_complete
        self._queue: "queue.Queue[SwapOutRequest | None]" = queue.Queue()

    def submit(self, request: SwapOutRequest) -> None:
        self._queue.put(request)

    def close(self) -> None:
        self._queue.put(None)
        self.join()

    def run(self) -> None:
        while True:
            request = self._queue.get()
            if request is None:
                return
            request.copy_done.synchronize()
            self._handle.async_pwrite(request.buffer.narrow(0, 0, request.aligned_numel), request.path)
            self._handle.wait()
            self._on_complete(request)
            request.done.set()
