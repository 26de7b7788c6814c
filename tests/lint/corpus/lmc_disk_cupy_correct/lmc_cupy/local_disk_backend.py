import logging
import os
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Dict, Optional

from lmc_cupy.config import LMCacheConfig
from lmc_cupy.memory import PinnedBufferPool, PinnedMemoryObj

logger = logging.getLogger(__name__)


class LocalDiskBackend:
    def __init__(self, config: LMCacheConfig, pool: PinnedBufferPool):
        self.path = config.local_disk
        self.suffix = config.disk_file_suffix
        os.makedirs(self.path, exist_ok=True)
        self.pool = pool
        self.executor = ThreadPoolExecutor(
            max_workers=config.max_local_disk_workers, thread_name_prefix="lmc-disk"
        )
        self.lock = threading.Lock()
        self.index: Dict[str, str] = {}
        self.put_tasks: Dict[str, Future] = {}

    def _key_to_path(self, key: str) -> str:
        return os.path.join(self.path, key.replace("/", "-") + self.suffix)

    def contains(self, key: str) -> bool:
        with self.lock:
            return key in self.index or key in self.put_tasks

    def submit_put_task(self, key: str, memory_obj: PinnedMemoryObj) -> Future:
        with self.lock:
            future = self.executor.submit(self._async_save, key, memory_obj)
            self.put_tasks[key] = future
        future.add_done_callback(lambda f: self._on_saved(key, memory_obj, f))
        return future

    def _async_save(self, key: str, memory_obj: PinnedMemoryObj) -> str:
        if memory_obj.ready_event is not None:
            memory_obj.ready_event.synchronize()
        path = self._key_to_path(key)
        with open(path, "wb") as f:
            f.write(memory_obj.array)
        return path

    def _on_saved(self, key: str, memory_obj: PinnedMemoryObj, future: Future) -> None:
        with self.lock:
            self.put_tasks.pop(key, None)
            if future.exception() is None:
                self.index[key] = future.result()
            else:
                logger.error("Failed to save %s: %s", key, future.exception())
        self.pool.release(memory_obj)

    def get_blocking(self, key: str) -> Optional[PinnedMemoryObj]:
        with self.lock:
            path = self.index.get(key)
        if path is None:
            return None
        obj = self.pool.allocate()
        if obj is None:
            return None
        with open(path, "rb") as f:
            f.readinto(obj.array.data.cast("B"))
        return obj
