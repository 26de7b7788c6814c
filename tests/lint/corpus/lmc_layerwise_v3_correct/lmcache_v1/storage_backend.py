# SPDX-License-Identifier: Apache-2.0
# Standard
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Dict, List
import logging
import os
import threading

# First Party
from .config import LMCacheEngineConfig
from .memory_obj import MemoryObj

logger = logging.getLogger(__name__)


class LocalDiskBackend:
    def __init__(self, config: LMCacheEngineConfig):
        self.path = config.disk_path()
        os.makedirs(self.path, exist_ok=True)
        self.put_tasks: Dict[str, Future] = {}
        self.lock = threading.Lock()
        self.executor = ThreadPoolExecutor(
            max_workers=config.max_disk_workers, thread_name_prefix="lmc-disk"
        )

    def _key_to_path(self, key: str) -> str:
        return os.path.join(self.path, key.replace("/", "-") + ".pt")

    def _write_file(self, memory_obj: MemoryObj) -> None:
        path = self._key_to_path(memory_obj.key)
        with open(path, "wb") as f:
            f.write(memory_obj.byte_array)
        with self.lock:
            self.put_tasks.pop(memory_obj.key, None)

    def batched_submit_put_task(self, memory_objs: List[MemoryObj]) -> None:
        for obj in memory_objs:
            with self.lock:
                if obj.key in self.put_tasks:
                    continue
                self.put_tasks[obj.key] = self.executor.submit(self._write_file, obj)

    def close(self) -> None:
        self.executor.shutdown(wait=True)
