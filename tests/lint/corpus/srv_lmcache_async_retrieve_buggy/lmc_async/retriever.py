"""Asynchronous retrieval in the shape of LMCache's async loading: the engine awaits
retrieve(), which awaits the backend reads and then scatters each chunk into the GPU KV cache
blocks the scheduler handed it, on the connector's load stream.
Bug: the load stream never waits on the engine's stream. The blocks come off the free list
and kernels queued before the step (or launched by other coroutines during the await) may
still read them, so the scatter can overwrite them under those kernels."""

import torch


class AsyncRetriever:
    def __init__(self, backend, num_blocks, chunk_numel, dtype=torch.float16):
        self.backend = backend
        self.kv_cache = torch.zeros((num_blocks, chunk_numel), dtype=dtype, device="cuda")
        self.load_stream = torch.cuda.Stream()
        self.loaded = torch.cuda.Event()

    async def retrieve(self, keys, block_ids):
        chunks = await self.backend.batched_get(keys)
        with torch.cuda.stream(self.load_stream):
            for chunk, block in zip(chunks, block_ids):
                # expect: KVG004
                self.kv_cache[block].copy_(chunk, non_blocking=True)
            self.loaded.record()
        return len(block_ids)

    def wait_loaded(self):
        torch.cuda.current_stream().wait_event(self.loaded)
