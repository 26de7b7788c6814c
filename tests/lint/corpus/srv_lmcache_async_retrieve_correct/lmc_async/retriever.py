"""Asynchronous retrieval in the shape of LMCache's async loading: the engine awaits
retrieve(), which awaits the backend reads and then scatters each chunk into the GPU KV cache
blocks the scheduler handed it, on the connector's load stream.
The blocks come off the free list and kernels queued before the step (or launched by other
coroutines during the await) may still read them, so once the reads are back the coroutine,
on the engine's thread, makes the load stream wait on the engine's current stream, after the
await and before the scatter."""

import torch


class AsyncRetriever:
    def __init__(self, backend, num_blocks, chunk_numel, dtype=torch.float16):
        self.backend = backend
        self.kv_cache = torch.zeros((num_blocks, chunk_numel), dtype=dtype, device="cuda")
        self.load_stream = torch.cuda.Stream()
        self.loaded = torch.cuda.Event()

    async def retrieve(self, keys, block_ids):
        chunks = await self.backend.batched_get(keys)
        self.load_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.load_stream):
            for chunk, block in zip(chunks, block_ids):
                self.kv_cache[block].copy_(chunk, non_blocking=True)
            self.loaded.record()
        return len(block_ids)

    def wait_loaded(self):
        torch.cuda.current_stream().wait_event(self.loaded)
