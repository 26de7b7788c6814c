"""Background thread persisting staged pages, one file per page key."""
import logging
import os
import queue
import threading
from dataclasses import dataclass

import cupy as cp

from .ring import StagingRing, StagingSlot

logger = logging.getLogger(__name__)


@dataclass
class WriteJob:
    key: str
    slot: StagingSlot
    copied: cp.cuda.Event      # recorded on the export stream after the slot's copy


class PageWriter(threading.Thread):
    def __init__(self, root: str, ring: StagingRing, jobs: "queue.Queue[WriteJob]"):
        super().__init__(name="kv-page-writer", daemon=True)
        self._root = root
        self._ring = ring
        self._jobs = jobs
        os.makedirs(root, exist_ok=True)

    def run(self) -> None:
        while True:
            job = self._jobs.get()
            if job is None:
                break
            try:
                job.copied.synchronize()
                tmp = os.path.join(self._root, f".{job.key}.tmp")
                with open(tmp, "wb") as f:
                    # expect: KVG003
                    f.write(job.slot.buf.tobytes())
                os.replace(tmp, os.path.join(self._root, f"{job.key}.page"))
            except OSError:
                logger.exception("could not persist page %s", job.key)
            finally:
                self._ring.release(job.slot)
                self._jobs.task_done()
