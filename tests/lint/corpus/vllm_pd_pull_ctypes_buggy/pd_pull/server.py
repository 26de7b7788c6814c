"""Prefill-side pull server: the decode instance connects, names a request, and receives the
request's KV bytes. Runs an asyncio loop on its own thread; staging runs on a copy pool."""

import asyncio
import functools
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import torch


@dataclass
class ReadyBlocks:
    block_ids: list
    kv_ready: torch.cuda.Event


class KVPullServer:
    def __init__(self, stager, host, port):
        self.stager = stager
        self.host, self.port = host, port
        self._ready = {}
        self._lock = threading.Lock()
        self._copy_pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="kv-stage")
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def publish(self, req_id, block_ids, kv_ready):
        with self._lock:
            self._ready[req_id] = ReadyBlocks(block_ids, kv_ready)

    def _serve(self):
        asyncio.set_event_loop(self._loop)
        self._staging_lock = asyncio.Lock()
        server = self._loop.run_until_complete(
            asyncio.start_server(self._handle, self.host, self.port))
        self._loop.run_until_complete(server.serve_forever())

    async def _handle(self, reader, writer):
        req_id = (await reader.readline()).decode().strip()
        with self._lock:
            ready = self._ready.pop(req_id)
        async with self._staging_lock:
            nbytes = await self._loop.run_in_executor(
                self._copy_pool,
                functools.partial(self.stager.stage, ready.block_ids, ready.kv_ready))
            writer.write(nbytes.to_bytes(8, "little"))
            writer.write(memoryview(self.stager.staging[:nbytes].numpy()))
            await writer.drain()
        writer.close()
