import logging
import os
from typing import List

from sgl_hicache_nb.constants import STORAGE_KEY_PREFIX

logger = logging.getLogger(__name__)


class HiCacheFileStorage:
    def __init__(self, root: str, rank: int = 0):
        self.root = os.path.join(root, f"rank{rank}")
        os.makedirs(self.root, exist_ok=True)

    def _path(self, key: str) -> str:
        return os.path.join(self.root, f"{STORAGE_KEY_PREFIX}-{key}.bin")

    def exists(self, key: str) -> bool:
        return os.path.exists(self._path(key))

    def batch_set(self, keys: List[str], values: List[bytes]) -> int:
        written = 0
        for key, value in zip(keys, values):
            if self.exists(key):
                continue
            with open(self._path(key), "wb") as f:
                f.write(value)
            written += 1
        logger.debug("Backed up %d/%d pages", written, len(keys))
        return written
