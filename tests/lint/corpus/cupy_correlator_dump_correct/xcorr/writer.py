"""Writes dumped visibility matrices to disk on a thread of its own, so that the capture loop
never blocks on the filesystem. Each dump arrives with the CUDA event that marks the end of
its device-to-host copy."""

import queue
import struct
import threading
from dataclasses import dataclass

import cupy
import numpy as np


@dataclass
class Dump:
    index: int
    slot: int
    host: np.ndarray
    copied: cupy.cuda.Event
    t_start: float


class DumpWriter:
    def __init__(self, path: str, free_slots: "queue.Queue[int]"):
        self._fh = open(path, "ab")
        self._free = free_slots
        self._q: "queue.Queue[Dump | None]" = queue.Queue(maxsize=8)
        self._thread = threading.Thread(target=self._run, name="vis-writer", daemon=True)
        self._thread.start()

    def submit(self, dump: Dump) -> None:
        self._q.put(dump)

    def close(self) -> None:
        self._q.put(None)
        self._thread.join()
        self._fh.close()

    def _run(self) -> None:
        while True:
            dump = self._q.get()
            if dump is None:
                break
            dump.copied.synchronize()
            self._fh.write(struct.pack("<qd", dump.index, dump.t_start))
            self._fh.write(dump.host.tobytes())
            self._free.put(dump.slot)
