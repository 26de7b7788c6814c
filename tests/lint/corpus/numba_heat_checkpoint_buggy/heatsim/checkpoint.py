import logging
import queue
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

import numpy as np

logger = logging.getLogger(__name__)


@dataclass
class CheckpointJob:
    step: int
    slot: int
    array: np.ndarray  # pinned host buffer owned by the simulation
    ready: Any  # numba.cuda Event recorded after the device->host copy


class CheckpointWriter:
    """Background thread that persists checkpoints without stalling the time loop."""

    def __init__(self, directory: Path, n_slots: int = 2):
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self._jobs: queue.Queue[Optional[CheckpointJob]] = queue.Queue()
        self._slot_free = [threading.Event() for _ in range(n_slots)]
        for ev in self._slot_free:
            ev.set()
        self._thread = threading.Thread(target=self._run, name="checkpoint-writer", daemon=True)
        self._thread.start()

    def acquire(self, slot: int) -> None:
        self._slot_free[slot].wait()
        self._slot_free[slot].clear()

    def submit(self, job: CheckpointJob) -> None:
        self._jobs.put(job)

    def close(self) -> None:
        self._jobs.put(None)
        self._thread.join()

    def _run(self) -> None:
        while (job := self._jobs.get()) is not None:
            job.ready.synchronize()
            path = self.directory / f"state_{job.step:08d}.npy"
            np.save(path, job.array)
            logger.info("wrote %s", path)
            self._slot_free[job.slot].set()
