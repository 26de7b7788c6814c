"""Per-step driver: prefetch the blocks this step's requests hit in the host cache, run the
forward, offload the blocks the step completed, and release host buffers once their store
event has completed."""

import torch

from prefetch.staging import StagedKVPrefetcher


class PrefetchingRunner:
    def __init__(self, model, kv_cache, max_blocks):
        self.model = model
        self.prefetcher = StagedKVPrefetcher(kv_cache, max_blocks)
        self.pending = []

    def step(self, batch, host_cache):
        if batch.hit_blocks:
            self.prefetcher.load(host_cache.gather(batch.hit_blocks), batch.hit_gpu_blocks)
        output = self.model(batch.input_ids, batch.positions)
        if batch.completed_blocks:
            host_out = torch.empty(
                (len(batch.completed_blocks),) + tuple(host_cache.block_shape),
                dtype=host_cache.dtype,
                pin_memory=True,
            )
            done = self.prefetcher.offload(batch.completed_blocks, host_out)
            self.pending.append((batch.completed_hashes, host_out, done))
        self._retire(host_cache)
        return output

    def _retire(self, host_cache):
        still = []
        for hashes, host_out, done in self.pending:
            if done.query():
                host_cache.insert(hashes, host_out)
            else:
                still.append((hashes, host_out, done))
        self.pending = still
