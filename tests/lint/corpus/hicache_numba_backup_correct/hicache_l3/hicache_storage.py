import hashlib
import logging
import os
from abc import ABC, abstractmethod
from typing import List, Optional

logger = logging.getLogger(__name__)


def get_hash_str(token_ids: List[int], prior_hash: Optional[str] = None) -> str:
    hasher = hashlib.sha256()
    if prior_hash:
        hasher.update(bytes.fromhex(prior_hash))
    for t in token_ids:
        hasher.update(t.to_bytes(4, byteorder="little", signed=False))
    return hasher.hexdigest()


class HiCacheStorage(ABC):
    @abstractmethod
    def batch_set(self, keys: List[str], values: List[bytes]) -> bool: ...

    @abstractmethod
    def exists(self, key: str) -> bool: ...


class HiCacheFile(HiCacheStorage):
    def __init__(self, file_path: str = "/tmp/hicache", tp_rank: int = 0):
        self.file_path = os.getenv("SGLANG_HICACHE_FILE_BACKEND_STORAGE_DIR", file_path)
        self.tp_suffix = f"_{tp_rank}"
        os.makedirs(self.file_path, exist_ok=True)

    def _path(self, key: str) -> str:
        return os.path.join(self.file_path, f"{key}{self.tp_suffix}.bin")

    def batch_set(self, keys: List[str], values: List[bytes]) -> bool:
        for key, value in zip(keys, values):
            try:
                with open(self._path(key), "wb") as f:
                    f.write(value)
            except OSError as e:
                logger.error("Failed to save page %s: %s", key, e)
                return False
        return True

    def exists(self, key: str) -> bool:
        return os.path.exists(self._path(key))
