"""A local-disk backend in the shape of LMCache's async storage backends: reads run on the
event loop's default executor and land in pinned staging buffers, so the coroutine can await
them without blocking the loop."""

import asyncio
import os

import torch


class LocalDiskBackend:
    def __init__(self, root, chunk_numel, num_staging, dtype=torch.float16):
        self.root = root
        self.staging = [torch.empty(chunk_numel, dtype=dtype, pin_memory=True) for _ in range(num_staging)]

    def _read_one(self, key, slot):
        buf = self.staging[slot]
        with open(os.path.join(self.root, key), "rb") as f:
            f.readinto(buf.numpy().data.cast("B"))
        return buf

    async def batched_get(self, keys):
        loop = asyncio.get_running_loop()
        reads = [loop.run_in_executor(None, self._read_one, key, slot) for slot, key in enumerate(keys)]
        return await asyncio.gather(*reads)
