"""Storage manager: a local CPU hot cache plus a remote backend whose puts run on the backend's
own event loop thread, so store() never blocks on the network."""

import asyncio
import threading
from concurrent.futures import Future
from typing import Dict, List

from lmcache_lite.remote_connector import LMCServerConnector


class RemoteBackend:
    def __init__(self, host: str, port: int):
        self.connection = LMCServerConnector(host, port)
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.put_tasks: Dict[str, Future] = {}
        self.lock = threading.Lock()

    async def _put(self, key: str, memory_obj, ready) -> None:
        # the device-to-host copies were only queued; poll instead of blocking the loop
        while not ready.query():
            await asyncio.sleep(0.0005)
        await self.connection.put(key, memory_obj)

    def _on_done(self, key: str, fut: Future) -> None:
        with self.lock:
            self.put_tasks.pop(key, None)

    def submit_put_task(self, key: str, memory_obj, ready) -> Future:
        fut = asyncio.run_coroutine_threadsafe(self._put(key, memory_obj, ready), self.loop)
        with self.lock:
            self.put_tasks[key] = fut
        fut.add_done_callback(lambda f, key=key: self._on_done(key, f))
        return fut


class StorageManager:
    def __init__(self, remote: RemoteBackend):
        self.hot_cache: Dict[str, object] = {}
        self.remote = remote

    def batched_put(self, keys: List[str], memory_objs: List[object], ready) -> None:
        for key, obj in zip(keys, memory_objs):
            self.hot_cache[key] = obj
            self.remote.submit_put_task(key, obj, ready)
