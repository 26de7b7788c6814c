"""Host-side Adam over flat fp32 buffers (stand-in for DeepSpeedCPUAdam's fused kernel)."""

import torch


class HostAdam:
    def __init__(self, numels, lr, betas, eps, weight_decay):
        self.lr, self.betas, self.eps, self.weight_decay = lr, betas, eps, weight_decay
        self.exp_avg = [torch.zeros(n, dtype=torch.float32) for n in numels]
        self.exp_avg_sq = [torch.zeros(n, dtype=torch.float32) for n in numels]
        self.step_id = 0

    @torch.no_grad()
    def step(self, params, grads):
        self.step_id += 1
        beta1, beta2 = self.betas
        bc1 = 1 - beta1 ** self.step_id
        bc2 = 1 - beta2 ** self.step_id
        for i, (p, g) in enumerate(zip(params, grads)):
            if self.weight_decay:
                g = g.add(p, alpha=self.weight_decay)
            self.exp_avg[i].mul_(beta1).add_(g, alpha=1 - beta1)
            self.exp_avg_sq[i].mul_(beta2).addcmul_(g, g, value=1 - beta2)
            denom = (self.exp_avg_sq[i] / bc2).sqrt_().add_(self.eps)
            p.addcdiv_(self.exp_avg[i], denom, value=-self.lr / bc1)
