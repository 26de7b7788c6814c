from __future__ import annotations

import logging
import os
from abc import ABC, abstractmethod
from typing import List

import torch

logger = logging.getLogger(__name__)


class HiCacheStorage(ABC):
    @abstractmethod
    def batch_set(self, keys: List[str], values: List[torch.Tensor]) -> bool:
        raise NotImplementedError


class HiCacheFile(HiCacheStorage):
    """Local-file L3 backend: one file per KV page, keyed by page hash."""

    def __init__(self, file_path: str = "/tmp/hicache", tp_rank: int = 0):
        self.file_path = os.getenv("SGLANG_HICACHE_FILE_BACKEND_STORAGE_DIR", file_path)
        self.suffix = f"_{tp_rank}"
        os.makedirs(self.file_path, exist_ok=True)

    def _path(self, key: str) -> str:
        return os.path.join(self.file_path, f"{key}{self.suffix}.bin")

    def exists(self, key: str) -> bool:
        return os.path.exists(self._path(key))

    def batch_set(self, keys: List[str], values: List[torch.Tensor]) -> bool:
        for key, value in zip(keys, values):
            if self.exists(key):
                continue
            try:
                with open(self._path(key), "wb") as f:
                    f.write(value.view(torch.uint8).numpy().tobytes())
            except OSError as e:
                logger.error("Failed to write page %s: %s", key, e)
                return False
        return True
