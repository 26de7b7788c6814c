import logging
import os
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Dict

from lmc_disk.config import LocalDiskConfig
from lmc_disk.memory_obj import TensorMemoryObj

logger = logging.getLogger(__name__)


class LocalDiskBackend:
    def __init__(self, config: LocalDiskConfig):
        self.path = config.local_disk_path
        os.makedirs(self.path, exist_ok=True)
        self.put_executor = ThreadPoolExecutor(max_workers=config.max_workers, thread_name_prefix="lmc-disk-put")
        self.put_tasks: Dict[str, Future] = {}
        self.index: Dict[str, int] = {}
        self.lock = threading.Lock()

    def _key_to_path(self, key: str) -> str:
        return os.path.join(self.path, key.replace("/", "-") + ".pt")

    def contains(self, key: str) -> bool:
        with self.lock:
            return key in self.index or key in self.put_tasks

    def submit_put_task(self, key: str, memory_obj: TensorMemoryObj) -> Future:
        with self.lock:
            fut = self.put_executor.submit(self._async_save_bytes_to_disk, key, memory_obj)
            self.put_tasks[key] = fut
        return fut

    def _async_save_bytes_to_disk(self, key: str, memory_obj: TensorMemoryObj):
        path = self._key_to_path(key)
        memory_obj.copy_event.synchronize()
        with open(path, "wb") as f:
            f.write(memory_obj.tensor.numpy().tobytes())
        with self.lock:
            self.index[key] = memory_obj.nbytes
            self.put_tasks.pop(key, None)
        logger.debug("saved %s (%d bytes)", key, memory_obj.nbytes)

    def close(self):
        self.put_executor.shutdown(wait=True)
