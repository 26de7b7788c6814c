"""Local disk tier in the shape of LMCache's LocalDiskBackend: puts are written to one file per
key by a small thread pool; the in-flight futures are kept so contains() can answer for keys
still being written."""

import os
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Dict

from lmc_disk.memory_obj import CacheEngineKey, TensorMemoryObj


class LocalDiskBackend:
    def __init__(self, path: str, max_workers: int = 4):
        self.path = path
        os.makedirs(path, exist_ok=True)
        self.executor = ThreadPoolExecutor(max_workers=max_workers, thread_name_prefix="lmc-disk")
        self.put_tasks: Dict[CacheEngineKey, Future] = {}
        self.dict: Dict[CacheEngineKey, str] = {}

    def _key_to_path(self, key: CacheEngineKey) -> str:
        return os.path.join(self.path, key.to_string().replace("/", "-") + ".pt")

    def contains(self, key: CacheEngineKey) -> bool:
        return key in self.dict or key in self.put_tasks

    def submit_put_task(self, key: CacheEngineKey, memory_obj: TensorMemoryObj) -> None:
        if self.contains(key):
            return
        self.put_tasks[key] = self.executor.submit(self.async_save_bytes_to_disk, key, memory_obj)

    def async_save_bytes_to_disk(self, key: CacheEngineKey, memory_obj: TensorMemoryObj) -> None:
        path = self._key_to_path(key)
        with open(path, "wb") as f:
            # expect: KVG003
            f.write(memory_obj.byte_array)
        self.dict[key] = path
        self.put_tasks.pop(key, None)
