"""The remote storage backend: puts and gets run as coroutines on the backend's event loop,
which a daemon thread drives; callers on the engine thread get concurrent futures back."""

import asyncio
import logging
import threading

import torch

from lmc_remote.config import REMOTE_PUT_TIMEOUT_S, STORE_POLL_INTERVAL_S
from lmc_remote.remote_connector import LMServerConnector
from lmc_remote.serde import NaiveSerializer

logger = logging.getLogger(__name__)


class RemoteBackend:
    def __init__(self, config):
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="lmc-remote", daemon=True)
        self.thread.start()
        host, port = config.remote_host_port
        self.connection = LMServerConnector(host, port)
        asyncio.run_coroutine_threadsafe(self.connection.connect(), self.loop).result()
        self.serde = NaiveSerializer()
        self.put_tasks = {}
        self.lock = threading.Lock()

    def submit_put_task(self, key, memory_obj, store_event: torch.cuda.Event):
        future = asyncio.run_coroutine_threadsafe(self._put(key, memory_obj, store_event), self.loop)
        with self.lock:
            self.put_tasks[key] = future
        future.add_done_callback(lambda _f: self._on_put_done(key))
        return future

    async def _put(self, key, memory_obj, store_event):
        # the gather into memory_obj runs on the store stream; yield the loop until it has landed
        if not store_event.query():
            await asyncio.sleep(STORE_POLL_INTERVAL_S)
        payload = self.serde.serialize(memory_obj)
        await asyncio.wait_for(self.connection.put(key.to_string(), payload), REMOTE_PUT_TIMEOUT_S)

    def _on_put_done(self, key):
        with self.lock:
            future = self.put_tasks.pop(key, None)
        if future is not None and future.exception() is not None:
            logger.warning("remote put of %s failed: %s", key.to_string(), future.exception())

    def get_blocking(self, key, memory_obj):
        payload = asyncio.run_coroutine_threadsafe(self.connection.get(key.to_string()), self.loop).result()
        self.serde.deserialize_into(payload, memory_obj)
        return memory_obj

    def close(self):
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join()
