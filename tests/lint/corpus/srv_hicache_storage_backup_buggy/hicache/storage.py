"""File-per-page L3 storage backend."""

import hashlib
import logging
import os
from typing import Optional

import torch

logger = logging.getLogger(__name__)


class HiCacheFile:
    def __init__(self, file_path: str = "/tmp/hicache", tp_rank: int = 0):
        self.file_path = file_path
        self.suffix = f"_tp{tp_rank}"
        os.makedirs(file_path, exist_ok=True)
        logger.info("HiCacheFile storage at %s", file_path)

    def _path(self, key: str) -> str:
        return os.path.join(self.file_path, f"{key}{self.suffix}.bin")

    def exists(self, key: str) -> bool:
        return os.path.exists(self._path(key))

    def set(self, key: str, value: torch.Tensor) -> bool:
        path = self._path(key)
        tmp = path + ".tmp"
        try:
            # expect: KVG003
            value.view(torch.uint8).numpy().tofile(tmp)
            os.replace(tmp, path)
        except OSError as e:
            logger.warning("failed to store %s: %s", key, e)
            return False
        return True

    def get(self, key: str, target: torch.Tensor) -> Optional[torch.Tensor]:
        path = self._path(key)
        try:
            with open(path, "rb") as f:
                n = f.readinto(memoryview(target.view(torch.uint8).numpy()).cast("B"))
        except FileNotFoundError:
            return None
        if n != target.numel() * target.element_size():
            logger.warning("short read for %s (%d bytes)", key, n)
            return None
        return target

    @staticmethod
    def page_key(prefix_hash: str, token_ids) -> str:
        return hashlib.sha256((prefix_hash + ",".join(map(str, token_ids))).encode()).hexdigest()
