"""Remote storage backend: puts run as coroutines on a private event loop thread."""

import asyncio
import struct
import threading

from lmc_remote.memory import MemoryObj


class RemoteConnection:
    def __init__(self, host: str, port: int):
        self.host = host
        self.port = port
        self._writer = None

    async def _ensure(self):
        if self._writer is None:
            _, self._writer = await asyncio.open_connection(self.host, self.port)
        return self._writer

    async def put(self, key: str, payload: bytes) -> None:
        writer = await self._ensure()
        kb = key.encode()
        writer.write(struct.pack("<II", len(kb), len(payload)) + kb + payload)
        await writer.drain()


class RemoteBackend:
    def __init__(self, host: str, port: int):
        self.connection = RemoteConnection(host, port)
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.put_futures = {}

    def submit_put_task(self, key: str, memory_obj: MemoryObj):
        fut = asyncio.run_coroutine_threadsafe(self._put(key, memory_obj), self.loop)
        self.put_futures[key] = fut
        return fut

    async def _put(self, key: str, memory_obj: MemoryObj) -> None:
        loop = asyncio.get_running_loop()
        # do not block the event loop on the copy
        await loop.run_in_executor(None, memory_obj.copy_done.synchronize)
        payload = memory_obj.byte_view.tobytes()
        await self.connection.put(key, payload)
