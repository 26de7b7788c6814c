from __future__ import annotations

import os
import threading
from collections import OrderedDict
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Dict, Optional, Tuple

from lmcache.logging import init_logger

from .memory_obj import MemoryObj
from .transfer_utils import wait_for_transfer

logger = init_logger(__name__)

CacheEngineKey = Tuple[str, int, int]


@dataclass
class LocalDiskConfig:
    path: str
    max_local_disk_size: float = 20.0  # GB
    num_io_workers: int = 4


class LocalDiskBackend:
    def __init__(self, config: LocalDiskConfig):
        self.config = config
        os.makedirs(config.path, exist_ok=True)
        self.dict: "OrderedDict[CacheEngineKey, Tuple[str, int]]" = OrderedDict()
        self.put_tasks: set = set()
        self.disk_lock = threading.Lock()
        self.disk_worker = ThreadPoolExecutor(
            max_workers=config.num_io_workers, thread_name_prefix="lmc-disk"
        )
        self.usage = 0

    def _key_to_path(self, key: CacheEngineKey) -> str:
        model, worker, chunk_hash = key
        return os.path.join(self.config.path, f"{model}@{worker}@{chunk_hash:x}.pt")

    def contains(self, key: CacheEngineKey) -> bool:
        with self.disk_lock:
            return key in self.dict

    def submit_put_task(self, key: CacheEngineKey, memory_obj: MemoryObj) -> Optional[Future]:
        with self.disk_lock:
            if key in self.dict or key in self.put_tasks:
                return None
            self.put_tasks.add(key)
        memory_obj.ref_count_up()
        return self.disk_worker.submit(self._async_save_bytes_to_disk, key, memory_obj)

    def _async_save_bytes_to_disk(self, key: CacheEngineKey, memory_obj: MemoryObj) -> None:
        path = self._key_to_path(key)
        size = memory_obj.get_size()
        wait_for_transfer(memory_obj)
        with open(path, "wb") as f:
            f.write(memory_obj.byte_array)
        memory_obj.ref_count_down()
        with self.disk_lock:
            self.dict[key] = (path, size)
            self.usage += size
            self.put_tasks.discard(key)
        logger.debug("saved %s (%d bytes)", path, size)

    def close(self) -> None:
        self.disk_worker.shutdown(wait=True)
