from __future__ import annotations

import logging
import os
import queue
import threading
from dataclasses import dataclass
from typing import Callable

import numpy as np
from numba import cuda

log = logging.getLogger(__name__)


@dataclass
class SnapshotJob:
    step: int
    slot: int
    host: np.ndarray
    done: "cuda.cudadrv.driver.Event"


class SnapshotWriter(threading.Thread):
    """Drains snapshot jobs to ``<out_dir>/u_<step>.npy`` and hands the pinned slot back."""

    def __init__(self, out_dir: str, release: Callable[[int], None], depth: int = 4) -> None:
        super().__init__(name="heatsim-ckpt-writer", daemon=True)
        os.makedirs(out_dir, exist_ok=True)
        self.out_dir = out_dir
        self._release = release
        self._jobs: "queue.Queue[SnapshotJob | None]" = queue.Queue(maxsize=depth)

    def submit(self, job: SnapshotJob) -> None:
        self._jobs.put(job)

    def close(self) -> None:
        self._jobs.put(None)
        self.join()

    def run(self) -> None:
        while (job := self._jobs.get()) is not None:
            try:
                job.done.synchronize()
                path = os.path.join(self.out_dir, f"u_{job.step:08d}.npy")
                np.save(path, job.host)
                log.debug("wrote %s", path)
            finally:
                self._release(job.slot)
