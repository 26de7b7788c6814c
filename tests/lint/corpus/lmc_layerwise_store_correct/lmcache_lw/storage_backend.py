import logging
import os
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Dict, List

import torch

from lmcache_lw.memory_management import MemoryObj, PinMemoryAllocator

logger = logging.getLogger(__name__)


class LocalDiskBackend:
    def __init__(self, path: str, max_workers: int, allocator: PinMemoryAllocator):
        os.makedirs(path, exist_ok=True)
        self.path = path
        self.allocator = allocator
        self.put_lock = threading.Lock()
        self.put_tasks: Dict[str, Future] = {}
        self.disk_worker = ThreadPoolExecutor(
            max_workers=max_workers, thread_name_prefix="lmcache-disk"
        )

    def _key_to_path(self, key: str) -> str:
        return os.path.join(self.path, key.replace("/", "-") + ".pt")

    def batched_submit_put_task(self, keys: List[str], memory_objs: List[MemoryObj]) -> None:
        for key, memory_obj in zip(keys, memory_objs):
            with self.put_lock:
                if key in self.put_tasks:
                    continue
                future = self.disk_worker.submit(self._async_save, key, memory_obj)
                self.put_tasks[key] = future
            future.add_done_callback(lambda _f, k=key: self._on_put_done(k))

    def _async_save(self, key: str, memory_obj: MemoryObj) -> None:
        if memory_obj.metadata.ready_event is not None:
            memory_obj.metadata.ready_event.synchronize()
        raw = memory_obj.tensor.view(torch.uint8)
        with open(self._key_to_path(key), "wb") as f:
            f.write(raw.numpy().tobytes())
        memory_obj.ref_count_down()
        self.allocator.free(memory_obj)

    def _on_put_done(self, key: str) -> None:
        with self.put_lock:
            self.put_tasks.pop(key, None)
