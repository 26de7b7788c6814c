import logging
import os
import threading
from collections import OrderedDict
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Set

from lmc.config import CacheEngineKey, LMCacheEngineConfig
from lmc.memory_management import MemoryObj

logger = logging.getLogger(__name__)


class LocalDiskBackend:
    def __init__(self, config: LMCacheEngineConfig):
        assert config.local_disk is not None
        self.path = config.local_disk.removeprefix("file://")
        os.makedirs(self.path, exist_ok=True)
        self.max_bytes = int(config.max_local_disk_size * 1024**3)
        self.used_bytes = 0
        self.lock = threading.Lock()
        self.dict: "OrderedDict[CacheEngineKey, str]" = OrderedDict()
        self.put_tasks: Set[CacheEngineKey] = set()
        self.executor = ThreadPoolExecutor(max_workers=config.disk_io_workers, thread_name_prefix="lmc-disk")

    def _key_to_path(self, key: CacheEngineKey) -> str:
        return os.path.join(self.path, key.to_string().replace("/", "-") + ".pt")

    def contains(self, key: CacheEngineKey) -> bool:
        with self.lock:
            return key in self.dict or key in self.put_tasks

    def submit_put_task(self, key: CacheEngineKey, memory_obj: MemoryObj) -> Future:
        memory_obj.ref_count_up()
        with self.lock:
            self.put_tasks.add(key)
        return self.executor.submit(self._async_save, key, memory_obj)

    def _async_save(self, key: CacheEngineKey, memory_obj: MemoryObj) -> None:
        memory_obj.metadata.ready_event.synchronize()
        path = self._key_to_path(key)
        with open(path, "wb") as f:
            f.write(memory_obj.byte_array)
        with self.lock:
            self.dict[key] = path
            self.used_bytes += memory_obj.tensor.nbytes
            self.put_tasks.discard(key)
        memory_obj.ref_count_down()
        logger.info("saved %s to %s", key.chunk_hash, path)

    def close(self) -> None:
        self.executor.shutdown(wait=True)
