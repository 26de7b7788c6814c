"""Turns per-tile hot-pixel counts into trigger decisions, on its own thread."""
import logging
import queue
import threading
from typing import Callable, List

import numpy as np

logger = logging.getLogger(__name__)


class TriggerConsumer(threading.Thread):
    def __init__(self, pending: queue.Queue, free: queue.Queue, min_pixels: int,
                 on_trigger: Callable[[int, List[int]], None]):
        super().__init__(name="trigger-consumer", daemon=True)
        self._pending = pending
        self._free = free
        self._min_pixels = min_pixels
        self._on_trigger = on_trigger

    def run(self) -> None:
        while True:
            item = self._pending.get()
            if item is None:
                break
            frame_id, slot = item
            slot.ready.synchronize()
            # expect: KVG003
            hot = np.flatnonzero(slot.h_counts >= self._min_pixels)
            if hot.size:
                logger.debug("frame %d: %d hot tiles", frame_id, hot.size)
                self._on_trigger(frame_id, hot.tolist())
            self._free.put(slot)
