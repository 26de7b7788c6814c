"""Executor loop owning the engine's runtime stream and the primary KV pool."""

from cuda.bindings import runtime as cudart

from .cuda_utils import CUASSERT, create_stream
from .secondary_pool import SecondaryBlockPool


class PyExecutorLoop:
    def __init__(self, engine_context, num_blocks, block_bytes, num_secondary_blocks):
        self._context = engine_context
        self._stream = create_stream()
        self._primary = CUASSERT(cudart.cudaMalloc(num_blocks * block_bytes))
        self.pool = SecondaryBlockPool(self._primary, block_bytes, num_secondary_blocks, self._stream)
        self._offloaded = {}

    def step(self, batch):
        for req in batch.resumed:
            slots = self._offloaded.pop(req.request_id)
            self.pool.onboard(slots, req.block_ids)
        self._context.set_tensor_address("kv_cache_pool", self._primary)
        if not self._context.execute_async_v3(self._stream):
            raise RuntimeError("engine enqueue failed")
        for req in batch.finished:
            self._offloaded[req.request_id] = self.pool.offload(req.block_ids)
        if batch.evicted:
            # Evicted blocks must reach the host before the pool reuses them: drain the engine.
            CUASSERT(cudart.cudaStreamSynchronize(self._stream))
        for req in batch.evicted:
            self._offloaded[req.request_id] = self.pool.offload(req.block_ids, wait_compute=False)
