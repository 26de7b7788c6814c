"""Adam over sub-groups whose states are swapped through two device slots; the update itself
runs on the device, sub-group by sub-group."""

import math

import torch

from .state_swapper import EXP_AVG, EXP_AVG_SQ, MASTER, OptimizerStateSwapper


class SlottedOffloadAdam:
    def __init__(self, fp16_groups, lr=1e-4, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0):
        self.fp16_groups = fp16_groups
        self.lr, self.betas, self.eps, self.weight_decay = lr, betas, eps, weight_decay
        masters = [g.detach().float().cpu() for g in fp16_groups]
        self.swapper = OptimizerStateSwapper([g.numel() for g in fp16_groups], masters)
        self.step_count = 0

    def _adam_update(self, state, grad):
        b1, b2 = self.betas
        master, exp_avg, exp_avg_sq = state[MASTER], state[EXP_AVG], state[EXP_AVG_SQ]
        grad = grad.float()
        if self.weight_decay:
            grad = grad.add(master, alpha=self.weight_decay)
        exp_avg.mul_(b1).add_(grad, alpha=1 - b1)
        exp_avg_sq.mul_(b2).addcmul_(grad, grad, value=1 - b2)
        bias1 = 1 - b1**self.step_count
        bias2 = 1 - b2**self.step_count
        denom = (exp_avg_sq / bias2).sqrt_().add_(self.eps)
        master.addcdiv_(exp_avg, denom, value=-self.lr / bias1)

    @torch.no_grad()
    def step(self, flat_grads):
        self.step_count += 1
        swapper = self.swapper
        num_groups = len(self.fp16_groups)
        swapper.swap_in(0)
        for i in range(num_groups):
            state = swapper.acquire(i)
            if i + 1 < num_groups:
                swapper.swap_in(i + 1)
            self._adam_update(state, flat_grads[i])
            swapper.swap_out(i)
            # the cast overlaps the swap-out: both only read the slot
            self.fp16_groups[i].copy_(state[MASTER])
        swapper.synchronize()

    def zero_grad(self, flat_grads):
        for g in flat_grads:
            g.zero_()


def grad_norm(flat_grads):
    return math.sqrt(sum(float(g.float().pow(2).sum()) for g in flat_grads))
