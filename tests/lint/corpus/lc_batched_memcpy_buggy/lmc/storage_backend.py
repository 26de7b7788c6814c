"""LocalDiskBackend with asyncio put tasks on a private loop thread."""

import asyncio
import os
import threading
from concurrent.futures import Future
from typing import Dict, List

import torch

from .memory_management import MemoryObj


class LocalDiskBackend:
    def __init__(self, path: str):
        self.path = path
        os.makedirs(path, exist_ok=True)
        self.loop = asyncio.new_event_loop()
        threading.Thread(target=self.loop.run_forever, name="lmc-disk", daemon=True).start()
        self.put_tasks: Dict[str, Future] = {}
        self.index: Dict[str, int] = {}
        self.lock = threading.Lock()

    def _key_to_path(self, key: str) -> str:
        return os.path.join(self.path, f"{key}.kv")

    def contains(self, key: str) -> bool:
        with self.lock:
            return key in self.index or key in self.put_tasks

    def batched_submit_put_task(self, keys: List[str], objs: List[MemoryObj], ready: torch.cuda.Event) -> None:
        for key, obj in zip(keys, objs):
            obj.ref_count_up()
            fut = asyncio.run_coroutine_threadsafe(self._async_put(key, obj, ready), self.loop)
            with self.lock:
                self.put_tasks[key] = fut

    async def _async_put(self, key: str, obj: MemoryObj, ready: torch.cuda.Event) -> None:
        path = self._key_to_path(key)
        nbytes = await asyncio.to_thread(self._write_file, path, obj)
        # completion of the batched D2H that filled obj
        await asyncio.to_thread(ready.synchronize)
        with self.lock:
            self.index[key] = nbytes
            self.put_tasks.pop(key, None)
        obj.ref_count_down()

    @staticmethod
    def _write_file(path: str, obj: MemoryObj) -> int:
        with open(path, "wb") as f:
            # expect: KVG003
            return f.write(obj.byte_array)
