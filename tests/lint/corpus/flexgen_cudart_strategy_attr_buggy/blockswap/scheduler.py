"""The step loop: resume what fits, run the batch, preempt what no longer fits."""

import torch

from .swapper import KVBlockSwapper


class SwappingScheduler:
    def __init__(self, model, swapper: KVBlockSwapper, block_manager):
        self.model = model
        self.swapper = swapper
        self.block_manager = block_manager

    @torch.inference_mode()
    def step(self, batch):
        resumed = self.block_manager.plan_swap_in(batch)
        if resumed:
            self.swapper.swap_in(resumed)
        logits = self.model(batch.input_ids, batch.positions, kv_pool=self.swapper.gpu_pool,
                            block_tables=batch.block_tables)
        next_tokens = logits[:, -1].argmax(dim=-1)
        preempted = self.block_manager.plan_swap_out(batch)
        if preempted:
            self.swapper.swap_out(preempted)
        return next_tokens
