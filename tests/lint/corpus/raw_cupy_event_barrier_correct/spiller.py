"""A cupy KV cache that spills blocks to a pinned pool on a non-blocking side stream with
``block.get(stream=side, out=pinned_slot)`` (blocking by default, so the host may read the
slot once ``get`` returns). The forward runs under ``with self.compute:``. ``step`` records a
``cupy.cuda.Event`` on the compute stream after the forward and the side stream waits on it;
``spill_now`` waits on ``self.compute.record()``, an event on the compute stream."""

import cupy
import cupyx
import numpy


class CupySpiller:
    def __init__(self, model, num_blocks, num_host_blocks, block_elems):
        self.model = model
        self.compute = cupy.cuda.Stream(non_blocking=True)
        self.side = cupy.cuda.Stream(non_blocking=True)
        self.cache = cupy.zeros((num_blocks, block_elems), dtype=cupy.float16)
        self.host = cupyx.empty_pinned((num_host_blocks, block_elems), dtype=numpy.float16)

    def step(self, batch, evicted):
        with self.compute:
            self.model(batch, self.cache)
        after = cupy.cuda.Event(disable_timing=True)
        after.record(self.compute)
        self.side.wait_event(after)
        for gpu_block, host_slot in evicted:
            self.cache[gpu_block].get(stream=self.side, out=self.host[host_slot])

    def spill_now(self, gpu_block, host_slot):
        self.side.wait_event(self.compute.record())
        self.cache[gpu_block].get(stream=self.side, out=self.host[host_slot])
        return self.host[host_slot].tolist()
