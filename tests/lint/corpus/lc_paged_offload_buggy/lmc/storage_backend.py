"""LocalDiskBackend: puts run as asyncio tasks on a private event loop thread."""

import asyncio
import os
import threading
from concurrent.futures import Future
from typing import Dict

from .memory_management import TensorMemoryObj


class LocalDiskBackend:
    def __init__(self, path: str):
        self.path = path
        os.makedirs(path, exist_ok=True)
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.put_tasks: Dict[str, Future] = {}
        self.index: Dict[str, int] = {}
        self.lock = threading.Lock()

    def _key_to_path(self, key: str) -> str:
        return os.path.join(self.path, key.replace("/", "-") + ".pt")

    def contains(self, key: str) -> bool:
        with self.lock:
            return key in self.index or key in self.put_tasks

    def submit_put_task(self, key: str, memory_obj: TensorMemoryObj) -> None:
        memory_obj.ref_count_up()
        fut = asyncio.run_coroutine_threadsafe(self._async_save(key, memory_obj), self.loop)
        with self.lock:
            self.put_tasks[key] = fut

    async def _async_save(self, key: str, memory_obj: TensorMemoryObj) -> None:
        path = self._key_to_path(key)
        await asyncio.to_thread(self._write_file, path, memory_obj.byte_array)
        with self.lock:
            self.index[key] = memory_obj.metadata.phy_size
            self.put_tasks.pop(key, None)
        memory_obj.ref_count_down()

    @staticmethod
    def _write_file(path: str, data: memoryview) -> None:
        with open(path, "wb") as f:
            f.write(data)
