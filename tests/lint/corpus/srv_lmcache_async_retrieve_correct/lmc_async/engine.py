"""The engine's step coroutine: runs the model, then awaits the retrieval of the next request's
cached prefix into freed blocks, and makes its stream wait for the load before using it."""

import asyncio

from lmc_async.backend import LocalDiskBackend
from lmc_async.retriever import AsyncRetriever


class Engine:
    def __init__(self, model, root, num_blocks, chunk_numel):
        self.model = model
        self.retriever = AsyncRetriever(LocalDiskBackend(root, chunk_numel, 8), num_blocks, chunk_numel)

    async def step(self, batch, next_keys, free_blocks):
        out = self.model(batch, self.retriever.kv_cache)
        await self.retriever.retrieve(next_keys, free_blocks)
        self.retriever.wait_loaded()
        return out

    def run(self, batches):
        async def loop():
            for batch, keys, blocks in batches:
                await self.step(batch, keys, blocks)

        asyncio.run(loop())
