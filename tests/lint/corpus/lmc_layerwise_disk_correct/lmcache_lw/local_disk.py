from __future__ import annotations

import logging
import os
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Dict, List

from lmcache_lw.config import LMCacheEngineConfig
from lmcache_lw.memory import MemoryObj

logger = logging.getLogger(__name__)


class LocalDiskBackend:
    def __init__(self, config: LMCacheEngineConfig):
        self.path = config.local_disk
        os.makedirs(self.path, exist_ok=True)
        self.executor = ThreadPoolExecutor(
            max_workers=config.num_disk_workers, thread_name_prefix="lmc-disk"
        )
        self.lock = threading.Lock()
        self.put_tasks: Dict[str, Future] = {}
        self.index: Dict[str, int] = {}

    def _key_to_path(self, key: str) -> str:
        return os.path.join(self.path, key.replace("/", "-") + ".pt")

    def submit_put_task(self, key: str, layer_objs: List[MemoryObj]) -> Future:
        with self.lock:
            future = self.executor.submit(self._write_chunk, key, layer_objs)
            self.put_tasks[key] = future
        return future

    def _write_chunk(self, key: str, layer_objs: List[MemoryObj]) -> None:
        path = self._key_to_path(key)
        size = 0
        with open(path, "wb") as f:
            for obj in layer_objs:
                size += f.write(obj.tensor.numpy().tobytes())
        with self.lock:
            self.index[key] = size
            self.put_tasks.pop(key, None)
        logger.debug("Stored %s (%d bytes)", key, size)

    def contains(self, key: str) -> bool:
        with self.lock:
            return key in self.index
