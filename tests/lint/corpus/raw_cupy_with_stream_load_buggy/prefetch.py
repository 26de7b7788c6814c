"""Onboarding KV blocks into a cupy cache from a pinned host pool: the scheduler hands the
loader GPU blocks it just freed, while decode kernels queued on the compute stream may still
read them. Loads run on a non-blocking load stream, once entered with ``with stream:`` (so
``ndarray.set`` without a stream uses it) and once passed as ``stream=``. Bugs: neither
load waits on the compute stream. The store of finished blocks runs on the current stream
(``get_current_stream()`` inside the compute block), which stream order protects."""

import cupy
import cupyx
import numpy


class BlockPrefetcher:
    def __init__(self, num_blocks, num_host_blocks, block_elems, model):
        self.model = model
        self.compute = cupy.cuda.Stream(non_blocking=True)
        self.load_stream = cupy.cuda.Stream(non_blocking=True)
        self.cache = cupy.empty((num_blocks, block_elems), dtype=cupy.float16)
        self.host = cupyx.empty_pinned((num_host_blocks, block_elems), dtype=numpy.float16)
        self.scratch = cupyx.empty_pinned((block_elems,), dtype=numpy.float16)

    def load(self, host_blocks, gpu_blocks):
        with self.load_stream:
            for src, dst in zip(host_blocks, gpu_blocks):
                # expect: KVG004
                self.cache[dst].set(self.host[src])
        loaded = self.load_stream.record()
        self.compute.wait_event(loaded)

    def load_one(self, host_block, gpu_block):
        # expect: KVG004
        self.cache[gpu_block].set(self.host[host_block], stream=self.load_stream)
        self.compute.wait_event(self.load_stream.record())

    def step(self, batch, finished_block):
        with self.compute:
            self.model(batch, self.cache)
            current = cupy.cuda.get_current_stream()
            self.cache[finished_block].get(stream=current, out=self.scratch)
        return self.scratch
