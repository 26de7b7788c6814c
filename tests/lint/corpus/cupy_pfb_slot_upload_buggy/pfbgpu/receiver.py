"""Receiver thread: fills a free slot from the socket and uploads it."""
import logging
import queue
import threading
from typing import Callable, Optional

import cupy as cp

from .slots import Slot

logger = logging.getLogger(__name__)


class Receiver:
    def __init__(self, recv_into: Callable, free_q: "queue.Queue[Slot]",
                 ready_q: "queue.Queue[Optional[Slot]]"):
        self.recv_into = recv_into
        self.free_q = free_q
        self.ready_q = ready_q
        self.stream = cp.cuda.Stream(non_blocking=True)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="pfb-recv", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        while not self._stop.is_set():
            slot = self.free_q.get()
            if slot.uploaded is not None:
                slot.uploaded.synchronize()      # the last upload no longer reads h_raw
            try:
                slot.nbytes, slot.timestamp = self.recv_into(slot.h_raw)
            except OSError:
                logger.exception("receive failed")
                self.free_q.put(slot)
                continue
            # expect: KVG004
            slot.d_raw.set(slot.h_raw, stream=self.stream)
            slot.uploaded = self.stream.record()
            self.ready_q.put(slot)
        self.ready_q.put(None)
