"""The engine thread: runs the forward under its own compute stream, records a runtime event
for the spiller and hands the evicted blocks over. Bug: the event is recorded BEFORE the
forward, so waiting on it orders the spill copies only behind earlier work, not behind the
forward's writes of the blocks being spilled."""

import torch
from cuda.bindings import runtime as cudart

from spill.runtime import rt
from spill.worker import Spiller


class SpillEngine:
    def __init__(self, model, num_blocks, num_slots, block_bytes, spill_path):
        self.model = model
        self.compute = torch.cuda.Stream()
        self.kv = torch.empty((num_blocks, block_bytes), dtype=torch.uint8, device="cuda")
        self.spiller = Spiller(self.kv, num_slots, block_bytes, spill_path)

    def step(self, batch, evicted):
        """``evicted``: blocks of requests that finish in this step; the forward writes their
        last tokens."""
        ready = rt(cudart.cudaEventCreateWithFlags(cudart.cudaEventDisableTiming))
        with torch.cuda.stream(self.compute):
            rt(cudart.cudaEventRecord(ready, self.compute.cuda_stream))
            self.model(batch, self.kv)
        self.spiller.submit(evicted, ready)
