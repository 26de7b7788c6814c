from __future__ import annotations

import dataclasses

import cupy
import numpy as np

RING_DEPTH = 4
KV_DTYPE = np.float16
TOKENS_PER_BLOCK = 16
NUM_KV_HEADS = 8
HEAD_DIM = 128
LOGGER_NAME = "kvstage"


@dataclasses.dataclass
class StreamSet:
    """Streams owned by one device worker."""

    device_id: int
    compute: cupy.cuda.Stream
    d2h: cupy.cuda.Stream

    @classmethod
    def create(cls, device_id: int = 0) -> "StreamSet":
        with cupy.cuda.Device(device_id):
            return cls(
                device_id=device_id,
                compute=cupy.cuda.Stream(non_blocking=True),
                d2h=cupy.cuda.Stream(non_blocking=True),
            )
