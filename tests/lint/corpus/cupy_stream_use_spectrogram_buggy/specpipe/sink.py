"""Appends spectrogram chunks to a raw float32 file plus a small JSON index."""

import json
import threading
from typing import List, Tuple

import numpy as np


class SpectrogramSink:
    def __init__(self, path: str):
        self.path = path
        self._fh = open(path, "wb")
        self._index: List[Tuple[int, int, int]] = []
        self._offset = 0
        self._lock = threading.Lock()

    def write(self, chunk_id: int, frames: np.ndarray) -> None:
        with self._lock:
            # expect: KVG003
            frames.tofile(self._fh)
            self._index.append((chunk_id, self._offset, frames.shape[0]))
            self._offset += frames.nbytes

    def close(self) -> None:
        with self._lock:
            self._fh.close()
            with open(self.path + ".json", "w") as f:
                json.dump(sorted(self._index), f)
