"""Writes packed prefixes to the disk tier, one file per prefix key."""
import os
import queue
import threading
from typing import Callable, Optional, Tuple

import numpy


class PrefixFileWriter:
    def __init__(self, root: str, release: Callable[[int], None]):
        os.makedirs(root, exist_ok=True)
        self.root = root
        self.release = release
        self.jobs: "queue.Queue[Optional[Tuple]]" = queue.Queue()
        self.thread = threading.Thread(target=self._run, name="prefix-writer", daemon=True)
        self.thread.start()

    def submit(self, key: str, slot: int, host: numpy.ndarray, done) -> None:
        self.jobs.put((key, slot, host, done))

    def close(self) -> None:
        self.jobs.put(None)
        self.thread.join()

    def _run(self) -> None:
        while True:
            job = self.jobs.get()
            if job is None:
                break
            key, slot, host, done = job
            done.synchronize()
            with open(os.path.join(self.root, key + ".kv"), "wb") as f:
                host.tofile(f)
            self.release(slot)
