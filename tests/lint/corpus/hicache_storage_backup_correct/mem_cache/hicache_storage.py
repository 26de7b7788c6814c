import hashlib
import logging
import os
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import List, Optional

import torch

logger = logging.getLogger(__name__)

STORAGE_BATCH_SIZE = 128


def get_hash_str(token_ids: List[int], prior_hash: Optional[str] = None) -> str:
    hasher = hashlib.sha256()
    if prior_hash:
        hasher.update(bytes.fromhex(prior_hash))
    for t in token_ids:
        hasher.update(t.to_bytes(4, byteorder="little", signed=False))
    return hasher.hexdigest()


@dataclass
class HiCacheStorageConfig:
    tp_rank: int
    tp_size: int
    model_name: Optional[str] = None


class HiCacheStorage(ABC):
    @abstractmethod
    def set(self, key: str, value: torch.Tensor) -> bool: ...

    def batch_set(self, keys: List[str], values: List[torch.Tensor]) -> bool:
        return all(self.set(key, value) for key, value in zip(keys, values))


class HiCacheFile(HiCacheStorage):
    def __init__(self, storage_config: HiCacheStorageConfig, file_path: str = "/tmp/hicache"):
        self.file_path = os.getenv("SGLANG_HICACHE_FILE_BACKEND_STORAGE_DIR", file_path)
        model = (storage_config.model_name or "model").replace("/", "-")
        self.config_suffix = f"_{model}_{storage_config.tp_rank}_{storage_config.tp_size}"
        os.makedirs(self.file_path, exist_ok=True)

    def _path(self, key: str) -> str:
        return os.path.join(self.file_path, f"{key}{self.config_suffix}.bin")

    def exists(self, key: str) -> bool:
        return os.path.exists(self._path(key))

    def set(self, key: str, value: torch.Tensor) -> bool:
        if self.exists(key):
            return True
        try:
            with open(self._path(key), "wb") as f:
                f.write(value.view(torch.uint8).numpy().tobytes())
            return True
        except OSError as e:
            logger.error("Failed to save page %s: %s", key, e)
            return False
