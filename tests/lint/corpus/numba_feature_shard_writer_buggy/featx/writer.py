"""Background writer: appends each chunk's features to a raw float32 file, in order,
and hands the pinned slot back to the pipeline when it is done with it."""

import queue
import threading
from dataclasses import dataclass
from typing import Optional

import numpy as np


@dataclass
class Shard:
    index: int
    slot: int
    frames: np.ndarray
    count: int


class ShardWriter(threading.Thread):
    def __init__(self, path: str, free_slots: "queue.Queue[int]"):
        super().__init__(name="feature-writer", daemon=True)
        self.path = path
        self.free_slots = free_slots
        self.jobs: "queue.Queue[Optional[Shard]]" = queue.Queue()
        self.error: Optional[BaseException] = None
        self.written = 0

    def submit(self, shard: Shard) -> None:
        if self.error is not None:
            raise RuntimeError("feature writer failed") from self.error
        self.jobs.put(shard)

    def close(self) -> None:
        self.jobs.put(None)
        self.join()
        if self.error is not None:
            raise RuntimeError("feature writer failed") from self.error

    def run(self) -> None:
        try:
            with open(self.path, "wb") as fh:
                while True:
                    shard = self.jobs.get()
                    if shard is None:
                        break
                    # expect: KVG003
                    fh.write(shard.frames[: shard.count].tobytes())
                    self.written += shard.count
                    self.free_slots.put(shard.slot)
        except BaseException as exc:  # surfaced on the next submit()/close()
            self.error = exc
