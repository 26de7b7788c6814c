import logging
import os
import queue
import threading
from dataclasses import dataclass

import cupy
import numpy as np

from .constants import SPILL_QUEUE_DEPTH, SPILL_SUFFIX

logger = logging.getLogger(__name__)


@dataclass
class SpillBatch:
    page_ids: list[int]
    host_slots: list[int]
    done: cupy.cuda.Event


class PageSpiller:
    def __init__(self, host_pages: np.ndarray, directory: str) -> None:
        self.host_pages = host_pages
        self.directory = directory
        os.makedirs(directory, exist_ok=True)
        self._queue: "queue.Queue[SpillBatch | None]" = queue.Queue(
            maxsize=SPILL_QUEUE_DEPTH)
        self._thread = threading.Thread(
            target=self._run, name="kv-page-spiller", daemon=True)
        self._thread.start()

    def submit(self, batch: SpillBatch) -> None:
        self._queue.put(batch)

    def close(self) -> None:
        self._queue.put(None)
        self._thread.join()

    def _run(self) -> None:
        while True:
            batch = self._queue.get()
            if batch is None:
                return
            batch.done.synchronize()
            for pid, slot in zip(batch.page_ids, batch.host_slots):
                path = os.path.join(self.directory, f"{pid:08d}{SPILL_SUFFIX}")
                with open(path, "wb") as fh:
                    fh.write(self.host_pages[slot].tobytes())
            logger.debug("spilled %d pages", len(batch.page_ids))
