"""An asyncio KV offloader for an engine whose step loop is a coroutine on one event loop
thread: ``save`` queues finished blocks for a long-running ``run`` task that copies them to
pinned host memory on a store stream; ``load`` brings host blocks back on a load stream and
yields to the loop until the copy completes. Both await the async barrier helper, which makes
their stream wait on the compute stream (this thread's current stream) before the copy is
queued or issued."""

import asyncio

import torch


class AsyncKVOffloader:
    def __init__(self, kv_cache, num_host_blocks):
        self.kv_cache = kv_cache
        self.host_cache = torch.empty(
            (num_host_blocks,) + tuple(kv_cache.shape[1:]), dtype=kv_cache.dtype, pin_memory=True
        )
        self.store_stream = torch.cuda.Stream()
        self.load_stream = torch.cuda.Stream()
        self.queue = asyncio.Queue()
        self.stored = {}

    async def _order_behind_compute(self, stream):
        stream.wait_stream(torch.cuda.current_stream())

    async def save(self, req_id, gpu_blocks, host_blocks):
        await self._order_behind_compute(self.store_stream)
        await self.queue.put((req_id, gpu_blocks, host_blocks))

    async def run(self):
        while True:
            req_id, gpu_blocks, host_blocks = await self.queue.get()
            with torch.cuda.stream(self.store_stream):
                for g, h in zip(gpu_blocks, host_blocks):
                    self.host_cache[h].copy_(self.kv_cache[g], non_blocking=True)
                done = torch.cuda.Event()
                done.record()
            while not done.query():
                await asyncio.sleep(0.001)
            self.stored[req_id] = host_blocks
            self.queue.task_done()

    async def load(self, host_blocks, gpu_blocks):
        await self._order_behind_compute(self.load_stream)
        with torch.cuda.stream(self.load_stream):
            for h, g in zip(host_blocks, gpu_blocks):
                self.kv_cache[g].copy_(self.host_cache[h], non_blocking=True)
            done = torch.cuda.Event()
            done.record()
        while not done.query():
            await asyncio.sleep(0.001)
        torch.cuda.current_stream().wait_stream(self.load_stream)
