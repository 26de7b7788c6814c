# SPDX-License-Identifier: Apache-2.0
import logging
import os
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Dict, Optional

from kvspill.config import KV_FILE_SUFFIX, PARTIAL_SUFFIX, SpillConfig
from kvspill.connector import TensorMemoryObj

logger = logging.getLogger(__name__)


class LocalDiskBackend:
    def __init__(self, config: SpillConfig):
        self.config = config
        self._executor = ThreadPoolExecutor(max_workers=config.put_workers, thread_name_prefix="kvspill-put")
        self._put_tasks: Dict[str, Future] = {}
        self._index: Dict[str, int] = {}
        self._lock = threading.Lock()
        os.makedirs(config.local_disk_path, exist_ok=True)

    def _path(self, key: str) -> str:
        return os.path.join(self.config.local_disk_path, key + KV_FILE_SUFFIX)

    def contains(self, key: str) -> bool:
        with self._lock:
            return key in self._index or key in self._put_tasks

    def _persist(self, key: str, memory_obj: TensorMemoryObj) -> None:
        path = self._path(key)
        with open(path + PARTIAL_SUFFIX, "wb") as f:
            # expect: KVG003
            f.write(memory_obj.byte_array)
        os.replace(path + PARTIAL_SUFFIX, path)
        with self._lock:
            self._index[key] = os.path.getsize(path)

    def _put_task(self, key: str, memory_obj: TensorMemoryObj) -> None:
        try:
            if memory_obj.ready_event is not None:
                memory_obj.ready_event.synchronize()
            self._persist(key, memory_obj)
        except OSError:
            logger.exception("failed to persist %s", key)
        finally:
            with self._lock:
                self._put_tasks.pop(key, None)

    def submit_put_task(self, key: str, memory_obj: TensorMemoryObj) -> Optional[Future]:
        if self.config.blocking_put:
            self._persist(key, memory_obj)
            return None
        future = self._executor.submit(self._put_task, key, memory_obj)
        with self._lock:
            self._put_tasks[key] = future
        return future

    def close(self) -> None:
        self._executor.shutdown(wait=True)
