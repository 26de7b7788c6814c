import logging
import os
import queue
import threading
from dataclasses import dataclass

import cupy
import cupyx
import numpy as np

from .streams import StreamSet

logger = logging.getLogger(__name__)


@dataclass
class SpillJob:
    path: str
    host_k: np.ndarray
    host_v: np.ndarray
    done: cupy.cuda.Event


class KVSpiller:
    """Moves the KV cache of attention layers to pinned buffers and writes them to disk
    from a background thread."""

    def __init__(self, spill_dir: str, kv_shape: tuple, dtype, num_buffers: int):
        os.makedirs(spill_dir, exist_ok=True)
        self.spill_dir = spill_dir
        self._free: "queue.Queue" = queue.Queue()
        for _ in range(num_buffers):
            self._free.put((cupyx.empty_pinned(kv_shape, dtype=dtype), cupyx.empty_pinned(kv_shape, dtype=dtype)))
        self._jobs: "queue.Queue" = queue.Queue()
        self._writer = threading.Thread(target=self._write_loop, name="kv-spill", daemon=True)
        self._writer.start()

    def store(self, layer_idx: int, step: int, k: cupy.ndarray, v: cupy.ndarray,
              computed: cupy.cuda.Event, streams: StreamSet) -> None:
        host_k, host_v = self._free.get()
        streams.store.wait_event(computed)
        cupy.asnumpy(k, stream=streams.store, out=host_k, blocking=False)
        cupy.asnumpy(v, stream=streams.store, out=host_v, blocking=False)
        done = streams.store.record()
        path = os.path.join(self.spill_dir, f"kv_l{layer_idx:03d}_s{step:05d}.npz")
        self._jobs.put(SpillJob(path, host_k, host_v, done))

    def _write_loop(self) -> None:
        while True:
            job = self._jobs.get()
            if job is None:
                return
            job.done.synchronize()
            with open(job.path, "wb") as fh:
                np.savez(fh, k=job.host_k, v=job.host_v)
            self._free.put((job.host_k, job.host_v))
            self._jobs.task_done()

    def flush(self) -> None:
        self._jobs.join()

    def close(self) -> None:
        self.flush()
        self._jobs.put(None)
        self._writer.join()
