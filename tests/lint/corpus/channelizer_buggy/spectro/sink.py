import logging
import queue
import threading
from typing import BinaryIO, Callable, List

import numpy as np

log = logging.getLogger(__name__)


class SpectrumSink(threading.Thread):
    """Consumes finished chunks in completion order and appends them to a file."""

    def __init__(self, buffers: List[np.ndarray], out: BinaryIO,
                 recycle: Callable[[int], None]):
        super().__init__(name="spectro-sink", daemon=True)
        self.ready: "queue.Queue" = queue.Queue()
        self._buffers = buffers
        self._out = out
        self._recycle = recycle
        self.total_power = 0.0

    def run(self) -> None:
        while True:
            item = self.ready.get()
            if item is None:
                break
            seq, slot = item
            buf = self._buffers[slot]
            # expect: KVG003
            payload = buf.tobytes()
            self.total_power += float(np.frombuffer(payload, dtype=np.float32).sum())
            self._out.write(payload)
            log.debug("chunk %d written from slot %d", seq, slot)
            self._recycle(slot)
