import queue
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import cupy as cp

from .buffers import Slot


@dataclass
class WriteJob:
    chunk_index: int
    slot: Slot
    ready: cp.cuda.Event


class SpectrogramWriter(threading.Thread):
    """Appends finished chunks to a raw float32 file and hands slots back to the pipeline."""

    def __init__(self, path: Path, max_pending: int = 8):
        super().__init__(name="spectrogram-writer", daemon=True)
        self.free_slots: queue.Queue[int] = queue.Queue()
        self._jobs: queue.Queue[Optional[WriteJob]] = queue.Queue(maxsize=max_pending)
        self._fh = open(path, "wb")
        self.chunks_written = 0

    def submit(self, job: WriteJob) -> None:
        self._jobs.put(job)

    def close(self) -> None:
        self._jobs.put(None)
        self.join()
        self._fh.close()

    def run(self) -> None:
        while (job := self._jobs.get()) is not None:
            job.ready.synchronize()
            self._fh.write(job.slot.h_out.tobytes())
            self.chunks_written += 1
            self.free_slots.put(job.slot.index)
