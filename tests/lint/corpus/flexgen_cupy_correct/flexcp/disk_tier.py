from __future__ import annotations

import logging
import os
import queue
import threading
from dataclasses import dataclass, field

import cupy as cp
import cupyx
import numpy as np

logger = logging.getLogger(__name__)


@dataclass
class SpillTask:
    buffers: list[tuple[str, np.ndarray]]
    done: cp.cuda.Event
    keepalive: tuple = field(default_factory=tuple)


class DiskCacheTier:
    """Writes new KV rows to files from a background thread."""

    def __init__(self, offload_dir: str, stream: cp.cuda.Stream):
        os.makedirs(offload_dir, exist_ok=True)
        self._dir = offload_dir
        self._stream = stream
        self._queue: queue.Queue[SpillTask | None] = queue.Queue()
        self._thread = threading.Thread(target=self._writer, daemon=True)
        self._thread.start()

    def _path(self, layer: int, pos: int, name: str) -> str:
        return os.path.join(self._dir, f"l{layer}_t{pos}_{name}.bin")

    def spill(self, layer: int, pos: int, k_new: cp.ndarray,
              v_new: cp.ndarray, computed: cp.cuda.Event) -> None:
        self._stream.wait_event(computed)
        buffers = []
        with self._stream:
            for name, arr in (("k", k_new), ("v", v_new)):
                host = cupyx.empty_pinned(arr.shape, dtype=arr.dtype)
                cp.asnumpy(arr, stream=self._stream, out=host, blocking=False)
                buffers.append((self._path(layer, pos, name), host))
            done = self._stream.record()
        self._queue.put(SpillTask(buffers, done, keepalive=(k_new, v_new)))

    def _writer(self) -> None:
        while True:
            task = self._queue.get()
            if task is None:
                return
            task.done.synchronize()
            for path, host in task.buffers:
                with open(path, "wb") as f:
                    f.write(host.tobytes())
            self._queue.task_done()

    def close(self) -> None:
        self._queue.join()
        self._queue.put(None)
        self._thread.join()
