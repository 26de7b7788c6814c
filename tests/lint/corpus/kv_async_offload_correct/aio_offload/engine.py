"""The engine's coroutine step loop: restore host blocks, run the forward on this thread's
current stream, then hand the blocks of finished requests to the offloader."""

import asyncio

import torch

from aio_offload.offloader import AsyncKVOffloader


class AsyncEngine:
    def __init__(self, model, num_gpu_blocks, num_host_blocks, block_shape):
        self.model = model
        self.kv_cache = torch.zeros((num_gpu_blocks,) + tuple(block_shape), dtype=torch.float16, device="cuda")
        self.offloader = AsyncKVOffloader(self.kv_cache, num_host_blocks)

    async def step(self, batch):
        if batch.restore_host_blocks:
            await self.offloader.load(batch.restore_host_blocks, batch.restore_gpu_blocks)
        logits = self.model(batch.input_ids, batch.positions, self.kv_cache, batch.block_tables)
        for req_id, gpu_blocks, host_blocks in batch.finished:
            await self.offloader.save(req_id, gpu_blocks, host_blocks)
        return logits

    async def serve(self, batches):
        saver = asyncio.create_task(self.offloader.run())
        outputs = []
        async for batch in batches:
            outputs.append(await self.step(batch))
        await self.offloader.queue.join()
        saver.cancel()
        return outputs
