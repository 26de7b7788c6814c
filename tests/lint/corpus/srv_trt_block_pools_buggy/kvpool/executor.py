"""One engine step: onboard reused prefixes, run the forward, offload evicted blocks."""

from kvpool.manager import KVCacheManager


class PyExecutor:
    def __init__(self, model, num_primary, num_secondary, block_shape):
        self.model = model
        self.kv = KVCacheManager(num_primary, num_secondary, block_shape)

    def step(self, batch):
        for request in batch.resumed:
            request.block_ids = self.kv.onboard(request.reused_hashes)
        logits = self.model(batch.input_ids, batch.positions, self.kv.primary, batch.block_tables)
        self.kv.offload(batch.evicted)
        self.kv.free(batch.finished_block_ids)
        return logits
