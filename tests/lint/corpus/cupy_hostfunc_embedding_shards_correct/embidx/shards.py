"""Pinned shard buffers and the thread that writes filled ones to disk."""

import os
import queue
import threading
from dataclasses import dataclass
from typing import Any, Optional, Tuple

import cupyx
import numpy as np


@dataclass
class ShardBuffer:
    vectors: np.ndarray
    ids: np.ndarray
    keepalive: Optional[Any] = None


def make_buffers(count: int, rows: int, dim: int):
    return [
        ShardBuffer(
            vectors=cupyx.empty_pinned((rows, dim), dtype=np.float32),
            ids=np.empty(rows, dtype=np.int64),
        )
        for _ in range(count)
    ]


class ShardWriter(threading.Thread):
    """Takes (buffer, rows, shard_no) off ``ready``, writes the shard, returns the buffer to
    ``free``. A ``None`` on ``ready`` stops it."""

    def __init__(self, out_dir: str, ready: "queue.Queue[Optional[Tuple[ShardBuffer, int, int]]]",
                 free: "queue.Queue[ShardBuffer]"):
        super().__init__(name="shard-writer", daemon=True)
        self.out_dir = out_dir
        self.ready = ready
        self.free = free

    def run(self) -> None:
        while True:
            item = self.ready.get()
            if item is None:
                return
            buf, rows, shard_no = item
            stem = os.path.join(self.out_dir, f"shard_{shard_no:06d}")
            with open(stem + ".f32", "wb") as fh:
                fh.write(buf.vectors[:rows].tobytes())
            with open(stem + ".ids", "wb") as fh:
                fh.write(buf.ids[:rows].tobytes())
            buf.keepalive = None
            self.free.put(buf)
