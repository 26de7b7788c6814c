import logging
import os
from typing import List

import numpy as np

from hicache_storage.config import HiCacheStorageConfig

logger = logging.getLogger(__name__)


class HiCacheFile:
    """One file per page, keyed by the page hash and the tensor-parallel rank."""

    def __init__(self, config: HiCacheStorageConfig):
        self.config_suffix = f"_{config.model_name}_{config.tp_rank}_{config.tp_size}"
        self.file_path = config.storage_dir
        os.makedirs(self.file_path, exist_ok=True)

    def _get_path(self, key: str) -> str:
        return os.path.join(self.file_path, f"{key}{self.config_suffix}.bin")

    def exists(self, key: str) -> bool:
        return os.path.exists(self._get_path(key))

    def batch_set(self, keys: List[str], values: List[np.ndarray]) -> List[bool]:
        results = []
        for key, value in zip(keys, values):
            if self.exists(key):
                results.append(True)
                continue
            try:
                with open(self._get_path(key), "wb") as f:
                    f.write(memoryview(value).cast("B"))
                results.append(True)
            except OSError as e:
                logger.error("Failed to write page %s: %s", key, e)
                results.append(False)
        return results
