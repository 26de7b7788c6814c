"""Feeds finished NV12 frames to the encoder's stdin, in order."""
import logging
import queue
import threading
from typing import BinaryIO, Optional

from .slots import FrameSlot

logger = logging.getLogger(__name__)


class EncoderFeeder(threading.Thread):
    def __init__(self, sink: BinaryIO):
        super().__init__(name="nv12-feeder", daemon=True)
        self.sink = sink
        self.frames: "queue.Queue[Optional[FrameSlot]]" = queue.Queue()
        self.written = 0

    def run(self) -> None:
        while True:
            slot = self.frames.get()
            if slot is None:
                self.sink.flush()
                return
            slot.ready.synchronize()
            self.sink.write(memoryview(slot.host))
            self.written += 1
            slot.released.set()
