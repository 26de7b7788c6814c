"""HiCacheFile: a trivially simple L3 backend, one file per page hash."""

import os
from typing import List

from .config import STORAGE_DIR
from .memory_pool import MHATokenToKVPoolHost


class HiCacheFile:
    def __init__(self, root: str = STORAGE_DIR):
        self.root = root
        os.makedirs(self.root, exist_ok=True)

    def _path(self, key: str) -> str:
        return os.path.join(self.root, f"{key}.bin")

    def exists(self, key: str) -> bool:
        return os.path.exists(self._path(key))

    def batch_set(self, keys: List[str], host_pool: MHATokenToKVPoolHost, pages: List[int]) -> bool:
        # page-first layout: every host page is one contiguous slab of the pool
        for key, page in zip(keys, pages):
            if self.exists(key):
                continue
            tmp = self._path(key) + ".tmp"
            with open(tmp, "wb") as fh:
                # expect: KVG003
                fh.write(host_pool.kv_buffer[page].numpy().tobytes())
            os.replace(tmp, self._path(key))
        return True
