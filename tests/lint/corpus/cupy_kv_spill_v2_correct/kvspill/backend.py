"""Local disk backend with an asynchronous put path."""

from dataclasses import dataclass
import logging
import os
import queue
import threading
from typing import Dict, Optional, Tuple
import zlib

import cupy
import numpy

from kvspill.pinned import PinnedBlockPool

logger = logging.getLogger(__name__)


@dataclass
class PutTask:
    key: str
    host: numpy.ndarray
    done: cupy.cuda.Event
    lease: int
    source: Optional[cupy.ndarray] = None


class LocalDiskBackend:
    def __init__(self, root: str, pool: PinnedBlockPool, max_pending: int = 64):
        self.root = root
        self.pool = pool
        os.makedirs(root, exist_ok=True)
        self.index: Dict[str, Tuple[str, int, int]] = {}
        self._index_lock = threading.Lock()
        self._tasks: "queue.Queue[Optional[PutTask]]" = queue.Queue(maxsize=max_pending)
        self._worker = threading.Thread(target=self._put_worker, name="kvspill-put", daemon=True)
        self._worker.start()

    def submit_put(self, task: PutTask) -> None:
        self._tasks.put(task)

    def contains(self, key: str) -> bool:
        with self._index_lock:
            return key in self.index

    def close(self) -> None:
        self._tasks.put(None)
        self._worker.join()

    def _put_worker(self) -> None:
        while True:
            task = self._tasks.get()
            if task is None:
                break
            try:
                self._write(task)
            except OSError:
                logger.exception("Failed to persist %s", task.key)
            finally:
                self.pool.release(task.lease)

    def _write(self, task: PutTask) -> None:
        task.done.synchronize()
        task.source = None
        checksum = zlib.crc32(task.host)
        path = os.path.join(self.root, f"{task.key}.kv")
        with open(path, "wb") as f:
            f.write(task.host)
        with self._index_lock:
            self.index[task.key] = (path, task.host.nbytes, checksum)
