"""Adam that steps host-resident chunks on a thread pool, then pushes fp16 weights back."""
from concurrent.futures import ThreadPoolExecutor
from typing import Sequence

import torch

from .grad_chunk import GradChunk
from .placement_config import ADAM_BETAS, ADAM_EPS, CPU_ADAM_THREADS


class HybridAdam:
    def __init__(self, chunks: Sequence[GradChunk], lr: float = 1e-3, weight_decay: float = 0.0):
        self.chunks = list(chunks)
        self.lr = lr
        self.weight_decay = weight_decay
        self.step_count = 0
        self._pool = ThreadPoolExecutor(max_workers=CPU_ADAM_THREADS, thread_name_prefix="hybrid-adam")

    def _step_chunk(self, chunk: GradChunk, inv_scale: float) -> bool:
        grad = chunk.host_grad
        if not bool(torch.isfinite(grad).all()):
            return False
        grad.mul_(inv_scale)
        beta1, beta2 = ADAM_BETAS
        if self.weight_decay:
            grad.add_(chunk.master, alpha=self.weight_decay)
        chunk.exp_avg.mul_(beta1).add_(grad, alpha=1 - beta1)
        chunk.exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        bias1 = 1 - beta1 ** self.step_count
        bias2 = 1 - beta2 ** self.step_count
        denom = (chunk.exp_avg_sq / bias2).sqrt_().add_(ADAM_EPS)
        chunk.master.addcdiv_(chunk.exp_avg, denom, value=-self.lr / bias1)
        return True

    def step(self, loss_scale: float = 1.0) -> bool:
        ready = [c for c in self.chunks if c.on_host]
        self.step_count += 1
        results = list(self._pool.map(lambda c: self._step_chunk(c, 1.0 / loss_scale), ready))
        if not all(results):
            return False
        for chunk in ready:
            chunk.cuda_param.copy_(chunk.master.to(chunk.cuda_param.dtype))
        return True
