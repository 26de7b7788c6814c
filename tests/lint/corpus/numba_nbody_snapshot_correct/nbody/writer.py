"""Writes snapshots to disk off the simulation thread."""
import logging
import os
import struct
from concurrent.futures import Future, ThreadPoolExecutor

import numpy as np

logger = logging.getLogger(__name__)

_HEADER = struct.Struct("<4sIQd")        # magic, version, n bodies, sim time


class SnapshotWriter:
    def __init__(self, out_dir: str, max_workers: int = 2):
        self.out_dir = out_dir
        os.makedirs(out_dir, exist_ok=True)
        self._pool = ThreadPoolExecutor(max_workers=max_workers, thread_name_prefix="snap")

    def submit(self, step: int, t: float, pos: np.ndarray, landed) -> Future:
        """landed: a CUDA event recorded after the copy that fills pos."""
        return self._pool.submit(self._write, step, t, pos, landed)

    def _write(self, step: int, t: float, pos: np.ndarray, landed) -> str:
        landed.synchronize()
        path = os.path.join(self.out_dir, f"snap_{step:08d}.bin")
        with open(path + ".tmp", "wb") as f:
            f.write(_HEADER.pack(b"NBDY", 1, pos.shape[0], t))
            f.write(pos.tobytes())
        os.replace(path + ".tmp", path)
        logger.debug("wrote %s", path)
        return path

    def close(self) -> None:
        self._pool.shutdown(wait=True)
