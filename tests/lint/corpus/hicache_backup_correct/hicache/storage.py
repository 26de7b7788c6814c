"""File-backed storage tier for HiCache pages."""

from __future__ import annotations

import logging
import os

import torch

logger = logging.getLogger(__name__)


class HiCacheFile:
    def __init__(self, file_path: str = "/tmp/hicache", tp_rank: int = 0):
        self.file_path = os.getenv("SGLANG_HICACHE_FILE_BACKEND_STORAGE_DIR", file_path)
        self.tp_suffix = f"_{tp_rank}"
        os.makedirs(self.file_path, exist_ok=True)

    def _get_path(self, key: str) -> str:
        return os.path.join(self.file_path, f"{key}{self.tp_suffix}.bin")

    def exists(self, key: str) -> bool:
        return os.path.exists(self._get_path(key))

    def set(self, key: str, value: torch.Tensor) -> bool:
        if self.exists(key):
            return True
        try:
            value.contiguous().view(dtype=torch.uint8).numpy().tofile(self._get_path(key))
            return True
        except OSError as e:
            logger.error("Failed to save page %s: %s", key, e)
            return False
