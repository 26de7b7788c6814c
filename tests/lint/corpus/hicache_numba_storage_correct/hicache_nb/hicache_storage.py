import logging
import os
from typing import List

import numpy as np

logger = logging.getLogger(__name__)


class HiCacheFile:
    """One file per page, named by the page's prefix hash."""

    def __init__(self, file_path: str = "/tmp/hicache", tp_rank: int = 0):
        self.file_path = os.path.join(file_path, f"rank{tp_rank}")
        os.makedirs(self.file_path, exist_ok=True)

    def _path(self, key: str) -> str:
        return os.path.join(self.file_path, f"{key}.bin")

    def exists(self, key: str) -> bool:
        return os.path.exists(self._path(key))

    def set(self, key: str, value: np.ndarray) -> bool:
        if self.exists(key):
            return True
        tmp = self._path(key) + ".tmp"
        try:
            with open(tmp, "wb") as f:
                f.write(memoryview(value).cast("B"))
            os.replace(tmp, self._path(key))
        except OSError:
            logger.exception("Failed to write page %s", key)
            return False
        return True

    def batch_set(self, keys: List[str], values: List[np.ndarray]) -> int:
        return sum(self.set(k, v) for k, v in zip(keys, values))
