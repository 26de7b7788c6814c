"""Storage manager: hot CPU dict plus asynchronous put tasks to local disk."""

import asyncio
import os
import threading
from collections import OrderedDict
from concurrent.futures import Future, ThreadPoolExecutor
from functools import partial
from typing import Dict, List, Optional, Tuple

import torch

from .config import DISK_FILE_SUFFIX, DISK_WORKERS, HOT_CACHE_CHUNKS
from .memory import MemoryObj


class LocalDiskBackend:
    def __init__(self, root: str, loop: asyncio.AbstractEventLoop):
        self.root = root
        self.loop = loop
        self.executor = ThreadPoolExecutor(max_workers=DISK_WORKERS,
                                           thread_name_prefix="lmc-disk")
        self.index: Dict[str, Tuple[str, int]] = {}
        self._lock = threading.Lock()
        os.makedirs(root, exist_ok=True)

    def _key_path(self, key: str) -> str:
        return os.path.join(self.root, key + DISK_FILE_SUFFIX)

    def _write_file(self, obj: MemoryObj) -> Tuple[str, int]:
        path = self._key_path(obj.key)
        if obj.copy_done is not None:
            # the D2H copy was only queued; wait for it on this worker thread
            obj.copy_done.synchronize()
        with open(path, "wb") as f:
            f.write(obj.tensor.view(torch.uint8).numpy().tobytes())
        return path, obj.tensor.nbytes

    async def async_put(self, obj: MemoryObj) -> None:
        path, size = await self.loop.run_in_executor(
            self.executor, self._write_file, obj)
        with self._lock:
            self.index[obj.key] = (path, size)

    def contains(self, key: str) -> bool:
        with self._lock:
            return key in self.index


class StorageManager:
    def __init__(self, disk_root: str):
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever,
                                        name="lmc-storage-loop", daemon=True)
        self._thread.start()
        self.disk = LocalDiskBackend(disk_root, self.loop)
        self.hot: "OrderedDict[str, MemoryObj]" = OrderedDict()
        self.put_tasks: Dict[str, Future] = {}
        self._tasks_lock = threading.Lock()

    def _on_put_done(self, key: str, fut: Future) -> None:
        with self._tasks_lock:
            self.put_tasks.pop(key, None)
        if fut.exception() is not None:
            self.hot.pop(key, None)

    def batched_put(self, objs: List[MemoryObj]) -> None:
        for obj in objs:
            self.hot[obj.key] = obj
            fut = asyncio.run_coroutine_threadsafe(self.disk.async_put(obj),
                                                   self.loop)
            with self._tasks_lock:
                self.put_tasks[obj.key] = fut
            fut.add_done_callback(partial(self._on_put_done, obj.key))
        while len(self.hot) > HOT_CACHE_CHUNKS:
            self.hot.popitem(last=False)

    def get(self, key: str) -> Optional[MemoryObj]:
        return self.hot.get(key)

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join()
        self.disk.executor.shutdown(wait=True)


class LMCacheEngine:
    """Store path: pack KV chunks into pinned buffers, then hand them to the
    storage manager, which persists them in the background."""

    def __init__(self, connector, allocator, manager: StorageManager):
        self.connector = connector
        self.allocator = allocator
        self.manager = manager

    def store(self, keys: List[str], starts: List[int],
              ends: List[int]) -> None:
        objs = [self.allocator.allocate(key, end - start)
                for key, start, end in zip(keys, starts, ends)]
        self.connector.batched_from_gpu(objs, starts, ends)
        self.manager.batched_put(objs)
