"""LMCache-style GPU connector: gathers KV chunks into pinned staging for the storage backend."""

import torch

from lmc.memcpy import ORDER_ANY, batch_copy


class BatchedGPUConnector:
    def __init__(self, kv_cache, num_chunks, chunk_bytes):
        self.kv_cache = kv_cache
        self.chunk_bytes = chunk_bytes
        self.staging = torch.empty(num_chunks, chunk_bytes, dtype=torch.uint8, pin_memory=True)
        self.stream = torch.cuda.Stream()

    def _drain_compute(self):
        # Everything the model queued (including this step's KV writes) must have run.
        torch.cuda.synchronize()

    def from_gpu(self, slot_ids):
        if len(slot_ids) == 0:
            return []
        srcs = [self.kv_cache[s].data_ptr() for s in slot_ids]
        dsts = [self.staging[i].data_ptr() for i in range(len(slot_ids))]
        sizes = [self.chunk_bytes] * len(slot_ids)
        try:
            # The device is idle after the sync, so the driver may read the sources whenever.
            batch_copy(dsts, srcs, sizes, self.stream, ORDER_ANY)
        finally:
            self.stream.synchronize()
        return [self.staging[i].numpy().tobytes() for i in range(len(slot_ids))]
