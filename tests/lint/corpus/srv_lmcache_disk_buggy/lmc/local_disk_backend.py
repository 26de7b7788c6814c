"""Local disk backend: persists pinned MemoryObjs from a thread pool."""

import os
from concurrent.futures import ThreadPoolExecutor

import torch


class LocalDiskBackend:
    def __init__(self, root, allocator, max_workers=2):
        self.root = root
        self.allocator = allocator
        self.executor = ThreadPoolExecutor(max_workers=max_workers, thread_name_prefix="lmc-disk")
        self.put_tasks = {}

    def _path(self, key):
        return os.path.join(self.root, f"{key:016x}.kv")

    def contains(self, key):
        return key in self.put_tasks or os.path.exists(self._path(key))

    def submit_put_task(self, key, memory_obj, done_event=None):
        fut = self.executor.submit(self._write_file, key, memory_obj, done_event)
        self.put_tasks[key] = fut
        fut.add_done_callback(lambda _f: self.put_tasks.pop(key, None))
        return fut

    def _write_file(self, key, memory_obj, done_event):
        if done_event is not None:
            done_event.synchronize()
        tmp = self._path(key) + ".tmp"
        with open(tmp, "wb") as f:
            # expect: KVG003
            f.write(memoryview(memory_obj.byte_array))
        os.replace(tmp, self._path(key))

    def get_blocking(self, key):
        obj = self.allocator.allocate(key)
        with open(self._path(key), "rb") as f:
            f.readinto(memoryview(obj.byte_array))
        return obj

    def close(self):
        self.executor.shutdown(wait=True)
