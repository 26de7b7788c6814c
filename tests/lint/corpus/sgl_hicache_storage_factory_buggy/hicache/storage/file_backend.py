"""A storage backend on a local or shared file system: one raw file per page."""

import logging
import os
from typing import List

import torch

from .base import HiCacheStorage, HiCacheStorageConfig, StorageBackendFactory

logger = logging.getLogger(__name__)


@StorageBackendFactory.register("file")
class HiCacheFile(HiCacheStorage):

    def __init__(self, config: HiCacheStorageConfig):
        root = config.extra_config.get("file_path", os.getenv("SGLANG_HICACHE_FILE_BACKEND_STORAGE_DIR", "/tmp/hicache"))
        suffix = f"_{config.model_name}_{config.tp_rank}_{config.tp_size}" if config.tp_size > 1 else ""
        self.suffix = suffix.replace("/", "-")
        self.root = root
        os.makedirs(self.root, exist_ok=True)

    def _path(self, key: str) -> str:
        return os.path.join(self.root, f"{key}{self.suffix}.bin")

    def batch_set(self, keys: List[str], values: List[torch.Tensor]) -> bool:
        for key, value in zip(keys, values):
            path = self._path(key)
            if os.path.exists(path):
                continue
            try:
                # expect: KVG003
                value.contiguous().view(dtype=torch.uint8).numpy().tofile(path)
            except OSError as exc:
                logger.error("failed to write %s: %s", path, exc)
                return False
        return True

    def batch_get(self, keys: List[str], target_locations: List[torch.Tensor]) -> List[bool]:
        results = []
        for key, target in zip(keys, target_locations):
            path = self._path(key)
            if not os.path.exists(path):
                results.append(False)
                continue
            with open(path, "rb", buffering=0) as f:
                f.readinto(memoryview(target.view(dtype=torch.uint8).numpy()))
            results.append(True)
        return results

    def exists(self, key: str) -> bool:
        return os.path.exists(self._path(key))
