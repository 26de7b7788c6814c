"""Counts hot pixels per tile of each camera frame on the GPU; a consumer thread turns the
counts into trigger decisions while later frames are processed."""
import math
import queue
from dataclasses import dataclass
from typing import Callable, List, Optional

import numpy as np
from numba import cuda

from .config import TriggerConfig
from .consumer import TriggerConsumer
from .kernels import tile_counts, zero_counts


@dataclass
class Slot:
    d_frame: object
    d_counts: object
    h_counts: np.ndarray
    ready: object


class TilePipeline:
    def __init__(self, cfg: TriggerConfig, on_trigger: Callable[[int, List[int]], None]):
        self.cfg = cfg
        self.stream = cuda.stream()
        self._free: "queue.Queue[Slot]" = queue.Queue()
        for _ in range(cfg.depth):
            self._free.put(Slot(
                d_frame=cuda.device_array((cfg.height, cfg.width), dtype=np.float32),
                d_counts=cuda.device_array(cfg.tiles, dtype=np.int32),
                h_counts=cuda.pinned_array(cfg.tiles, dtype=np.int32),
                ready=cuda.event(timing=False),
            ))
        self._pending: "queue.Queue[Optional[tuple]]" = queue.Queue(maxsize=cfg.depth)
        self._consumer = TriggerConsumer(self._pending, self._free, cfg.min_pixels, on_trigger)
        self._consumer.start()
        self._block = (16, 16)
        self._grid = (math.ceil(cfg.height / 16), math.ceil(cfg.width / 16))
        ty, tx = cfg.tiles
        self._cgrid = (math.ceil(ty / 16), math.ceil(tx / 16))

    def submit(self, frame_id: int, frame: np.ndarray) -> None:
        slot = self._free.get()
        s = self.stream
        slot.d_frame.copy_to_device(np.ascontiguousarray(frame, dtype=np.float32), stream=s)
        zero_counts[self._cgrid, self._block, s](slot.d_counts)
        tile_counts[self._grid, self._block, s](slot.d_frame, self.cfg.threshold, self.cfg.tile,
                                                slot.d_counts)
        # frame processed: the consumer may look at the counts once this fires
        slot.ready.record(stream=s)
        slot.d_counts.copy_to_host(slot.h_counts, stream=s)
        self._pending.put((frame_id, slot))

    def close(self) -> None:
        self._pending.put(None)
        self._consumer.join()
        self.stream.synchronize()
