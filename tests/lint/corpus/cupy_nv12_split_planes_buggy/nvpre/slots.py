"""A frame slot: device RGB input, device NV12 output, pinned NV12 for the encoder."""
import threading
from dataclasses import dataclass, field
from typing import Optional

import cupy
import cupyx
import numpy


@dataclass
class FrameSlot:
    width: int
    height: int
    index: int = 0
    ready: Optional[cupy.cuda.Event] = None
    # set while nobody (GPU work or the feeder) needs the slot any more
    released: threading.Event = field(default_factory=threading.Event)

    def __post_init__(self):
        w, h = self.width, self.height
        self.rgb = cupy.empty((h, w, 3), dtype=cupy.uint8)
        self.nv12 = cupy.empty((h * 3 // 2, w), dtype=cupy.uint8)
        self.y = self.nv12[:h]
        self.uv = self.nv12[h:]
        self.host = cupyx.empty_pinned((h * 3 // 2, w), dtype=numpy.uint8)
        self.released.set()
