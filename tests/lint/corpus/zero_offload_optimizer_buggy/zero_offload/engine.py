import torch
from deepspeed.utils import logger

from .config import OffloadOptimizerConfig
from .stage_offload import ZeroOffloadOptimizer


class OffloadEngine:
    """Thin training engine wiring a module to the ZeRO-Offload optimizer."""

    def __init__(self, model, config: OffloadOptimizerConfig, lr=1e-3, dp_process_group=None, steps_per_print=10):
        self.module = model
        self.config = config
        self.optimizer = ZeroOffloadOptimizer(model, config, lr=lr, dp_process_group=dp_process_group)
        self.global_steps = 0
        self.skipped_steps = 0
        self.steps_per_print = steps_per_print

    def forward(self, *inputs, **kwargs):
        return self.module(*inputs, **kwargs)

    def backward(self, loss):
        (loss * self.optimizer.loss_scale).backward()

    def step(self):
        if not self.optimizer.step():
            self.skipped_steps += 1
        self.global_steps += 1
        if self.global_steps % self.steps_per_print == 0:
            logger.info(f"step={self.global_steps} skipped={self.skipped_steps} "
                        f"loss_scale={self.optimizer.loss_scale}")

    def train_batch(self, batch):
        loss = self.forward(**batch)
        self.backward(loss)
        self.step()
        return loss.detach()

    @torch.no_grad()
    def eval_batch(self, batch):
        return self.forward(**batch)
