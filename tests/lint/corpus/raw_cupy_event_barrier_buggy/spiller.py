"""A cupy KV cache that spills blocks to a pinned pool on a non-blocking side stream with
``block.get(stream=side, out=pinned_slot)`` (blocking by default, so the host may read the
slot once ``get`` returns). The forward runs under ``with self.compute:``. Bugs: ``step``
records its event on the compute stream BEFORE the forward, so the wait covers none of the
forward's writes; ``spill_now`` waits on an event recorded on the side stream itself, which
orders nothing behind the compute stream."""

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
            before = self.compute.record()
            self.model(batch, self.cache)
        self.side.wait_event(before)
        for gpu_block, host_slot in evicted:
            # expect: KVG001
            self.cache[gpu_block].get(stream=self.side, out=self.host[host_slot])

    def spill_now(self, gpu_block, host_slot):
        self.side.wait_event(self.side.record())
        # expect: KVG001
        self.cache[gpu_block].get(stream=self.side, out=self.host[host_slot])
        return self.host[host_slot].tolist()
