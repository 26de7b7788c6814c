# SPDX-License-Identifier: Apache-2.0
# Standard
import logging
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Dict, List, Optional
import os

# First Party
from lmcache_lw.config import LMCacheEngineConfig
from lmcache_lw.memory_management import MemoryObj

logger = logging.getLogger(__name__)


class StorageManager:
    """Hot tier in pinned CPU memory plus optional write-behind to local disk."""

    def __init__(self, config: LMCacheEngineConfig):
        self.hot_cache: Dict[str, MemoryObj] = {}
        self.disk_path: Optional[str] = config.local_disk
        self.put_tasks: Dict[str, Future] = {}
        self._executor = ThreadPoolExecutor(max_workers=2, thread_name_prefix="lmc-disk")
        if self.disk_path is not None:
            os.makedirs(self.disk_path, exist_ok=True)

    def contains(self, key: str) -> bool:
        return key in self.hot_cache

    def batched_put(self, keys: List[str], memory_objs: List[MemoryObj]) -> None:
        for key, memory_obj in zip(keys, memory_objs):
            memory_obj.key = key
            self.hot_cache[key] = memory_obj
            if self.disk_path is not None and key not in self.put_tasks:
                self.put_tasks[key] = self._executor.submit(self._write_file, key, memory_obj)

    def _write_file(self, key: str, memory_obj: MemoryObj) -> int:
        path = os.path.join(self.disk_path, key.replace("/", "-") + ".kv")
        with open(path, "wb") as f:
            n = f.write(memory_obj.byte_array)
        logger.debug("Stored %s (%d bytes) to disk", key, n)
        return n

    def close(self) -> None:
        self._executor.shutdown(wait=True)
