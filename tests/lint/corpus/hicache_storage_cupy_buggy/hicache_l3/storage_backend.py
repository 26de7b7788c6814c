import logging
import os

import numpy as np

logger = logging.getLogger(__name__)


class HiCacheFile:
    def __init__(self, storage_dir: str):
        self.storage_dir = storage_dir
        os.makedirs(storage_dir, exist_ok=True)

    def _path(self, key: str) -> str:
        return os.path.join(self.storage_dir, f"{key}.bin")

    def exists(self, key: str) -> bool:
        return os.path.exists(self._path(key))

    def set(self, key: str, value: np.ndarray) -> bool:
        if self.exists(key):
            return True
        try:
            value.tofile(self._path(key))
        except OSError as e:
            logger.error("failed to write page %s: %s", key, e)
            return False
        return True
