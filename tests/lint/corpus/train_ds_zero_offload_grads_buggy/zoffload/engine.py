"""A training step that registers per-parameter backward hooks feeding the ZeRO buckets."""

from .stage2 import ZeroOffloadOptimizer


class OffloadEngine:
    def __init__(self, model, fp32_partitions, param_to_slot, bucket_numel=1 << 24):
        self.model = model
        self.optimizer = ZeroOffloadOptimizer(fp32_partitions, bucket_numel)
        self.param_to_slot = param_to_slot

    def train_batch(self, batch):
        loss = self.model(batch)
        loss.backward()
        for param in self.model.parameters():
            if param.grad is None:
                continue
            partition_id, offset = self.param_to_slot[param]
            self.optimizer.reduce_independent_p_g_buckets_and_remove_grads(param, partition_id, offset)
        return self.optimizer.step()
