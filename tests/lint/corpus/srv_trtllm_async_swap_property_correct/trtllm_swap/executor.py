"""An asyncio executor loop in the style of TensorRT-LLM's PyExecutor: the model engine runs
on a dedicated forward stream, swaps are scheduled between iterations."""

import asyncio

import torch

from .kv_swap import KVSwapManager


class AsyncPyExecutor:
    def __init__(self, engine, num_device_blocks, num_host_blocks, block_numel, spill_path):
        self.engine = engine
        self.forward_stream = torch.cuda.Stream()
        torch.cuda.set_stream(self.forward_stream)
        self.swap = KVSwapManager(num_device_blocks, num_host_blocks, block_numel)
        self.spill = open(spill_path, "ab")

    async def iteration(self, batch):
        logits = self.engine(batch.input_ids, self.swap.device_blocks, batch.block_tables)
        if batch.preempted:
            await self.swap.swap_out(batch.preempted, self.spill if batch.spill else None)
        if batch.resumed:
            await self.swap.swap_in(batch.resumed)
        return logits

    async def serve(self, batches):
        outputs = []
        async for batch in batches:
            outputs.append(await self.iteration(batch))
        return outputs


def main(engine, batches, spill_path):
    executor = AsyncPyExecutor(engine, 8192, 32768, 65536, spill_path)
    return asyncio.run(executor.serve(batches))
