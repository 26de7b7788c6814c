"""Device-to-host copies on a dedicated daemon thread.

Where the platform forces a device-to-host ``cudaMemcpyAsync`` to block at issue (confidential
computing bounce buffers), issuing it inline would stall the scheduler thread while it should be
launching the next step. The worker takes the copy off that thread: ``submit`` records a readiness
event on the caller's (producing) stream and returns a ``HostCopyDone`` handle; the worker waits on
the event with the host, runs the copy on its own stream and signals the handle.

Bug: the worker signals the handle as soon as the copies are *issued*. The copies are
``non_blocking`` into pinned memory, so outside confidential computing they return before the
bytes land, and a consumer that waited on the handle reads stale host tensors."""

import logging
import queue
import threading
from typing import Callable, Optional

import torch

logger = logging.getLogger(__name__)


class HostCopyDone:
    """Completion handle with the surface of a CUDA event (``synchronize`` / ``query``) that also
    carries the exception a failed copy raised."""

    def __init__(self):
        self._done = threading.Event()
        self.error: Optional[BaseException] = None

    def set_done(self, error: Optional[BaseException] = None) -> None:
        self.error = error
        self._done.set()

    def synchronize(self) -> None:
        self._done.wait()
        if self.error is not None:
            raise RuntimeError("device->host copy failed; host tensors are invalid") from self.error

    def query(self) -> bool:
        return self._done.is_set()


class AsyncD2HCopyWorker:
    def __init__(self, device: torch.device):
        self.device = device
        # Private to the worker: nothing else may enqueue on it.
        self.d2h_copy_stream = torch.cuda.Stream(device=device)
        self._queue: "queue.Queue" = queue.Queue()
        self._thread = threading.Thread(target=self._loop, name="d2h-copy-worker", daemon=True)
        self._thread.start()

    def submit(self, copy_fn: Callable[[], None]) -> HostCopyDone:
        """Must be called with the stream that produced the copy sources current."""
        src_ready = torch.cuda.Event()
        src_ready.record()
        done = HostCopyDone()
        self._queue.put((src_ready, copy_fn, done))
        return done

    def _loop(self) -> None:
        torch.cuda.set_device(self.device)
        while True:
            item = self._queue.get()
            if item is None:
                return
            src_ready, copy_fn, done = item
            error = None
            try:
                src_ready.synchronize()
                with torch.cuda.stream(self.d2h_copy_stream):
                    copy_fn()
            except Exception as e:  # noqa: BLE001
                logger.exception("async device->host copy failed")
                error = e
            finally:
                done.set_done(error=error)

    def shutdown(self, timeout: float = 2.0) -> None:
        if self._thread.is_alive():
            self._queue.put(None)
            self._thread.join(timeout=timeout)
