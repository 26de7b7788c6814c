import logging
import os
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass

import torch

from .memory_management import MemoryObj

logger = logging.getLogger(__name__)


@dataclass
class DiskCacheMetadata:
    path: str
    size: int
    shape: torch.Size
    dtype: torch.dtype


class LocalDiskBackend:
    def __init__(self, path: str, max_workers: int = 4):
        os.makedirs(path, exist_ok=True)
        self.path = path
        self._executor = ThreadPoolExecutor(max_workers, thread_name_prefix="lmcache-disk")
        self._index: dict[str, DiskCacheMetadata] = {}
        self._lock = threading.Lock()

    def _key_to_path(self, key: str) -> str:
        return os.path.join(self.path, key.replace("/", "-") + ".pt")

    def contains(self, key: str) -> bool:
        with self._lock:
            return key in self._index

    def batched_submit_put_task(self, keys: list[str], memory_objs: list[MemoryObj]) -> list[Future]:
        futures = []
        for key, obj in zip(keys, memory_objs):
            obj.ref_count_up()
            futures.append(self._executor.submit(self._write_file, key, obj))
        return futures

    def _write_file(self, key: str, memory_obj: MemoryObj) -> None:
        path = self._key_to_path(key)
        try:
            with open(path, "wb") as f:
                # expect: KVG003
                f.write(memory_obj.tensor.view(torch.uint8).numpy())
            meta = DiskCacheMetadata(path, memory_obj.get_size(), memory_obj.metadata.shape, memory_obj.metadata.dtype)
            with self._lock:
                self._index[key] = meta
        except OSError:
            logger.exception("Failed to write %s to disk", key)
        finally:
            memory_obj.ref_count_down()
