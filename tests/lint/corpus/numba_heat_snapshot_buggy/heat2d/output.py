"""Snapshot writer: frames land in a small ring of pinned host buffers and a thread
writes them out as .npy files, returning each buffer to the ring when done."""

import os
import queue
import threading
from typing import Optional, Tuple

import numpy as np
from numba import cuda


class FrameRing:
    def __init__(self, shape, dtype, depth: int = 3):
        self.frames = [cuda.pinned_array(shape, dtype=dtype) for _ in range(depth)]
        self.free: "queue.Queue[int]" = queue.Queue()
        for i in range(depth):
            self.free.put(i)

    def acquire(self) -> Tuple[int, np.ndarray]:
        slot = self.free.get()
        return slot, self.frames[slot]

    def release(self, slot: int) -> None:
        self.free.put(slot)


class SnapshotWriter:
    def __init__(self, out_dir: str, ring: FrameRing):
        os.makedirs(out_dir, exist_ok=True)
        self.out_dir = out_dir
        self.ring = ring
        self.jobs: "queue.Queue[Optional[tuple]]" = queue.Queue()
        self.thread = threading.Thread(target=self._loop, name="snapshot-writer", daemon=True)
        self.thread.start()

    def submit(self, step: int, slot: int, landed) -> None:
        self.jobs.put((step, slot, landed))

    def close(self) -> None:
        self.jobs.put(None)
        self.thread.join()

    def _loop(self) -> None:
        while True:
            job = self.jobs.get()
            if job is None:
                return
            step, slot, landed = job
            landed.synchronize()
            np.save(os.path.join(self.out_dir, f"u_{step:08d}.npy"), self.ring.frames[slot])
            self.ring.release(slot)
