"""Host Adam over pinned fp32 master weights; fp16 weights go back on the current stream."""
import torch

from .grad_offload import ZeroOffloadGradHandler


class DeepSpeedCPUAdamLite:
    def __init__(self, handler: ZeroOffloadGradHandler, lr=1e-3, betas=(0.9, 0.999), eps=1e-8):
        self.handler = handler
        self.lr, self.betas, self.eps = lr, betas, eps
        self.masters = {id(p): p.detach().float().cpu().pin_memory() for p in handler.params}
        self.state = {k: (torch.zeros_like(m), torch.zeros_like(m)) for k, m in self.masters.items()}
        self.step_id = 0

    @torch.no_grad()
    def step(self) -> bool:
        if self.handler.finish_backward():
            return False
        self.step_id += 1
        b1, b2 = self.betas
        for p in self.handler.params:
            master = self.masters[id(p)]
            grad = self.handler.host_grads[id(p)].view(master.shape).float()
            m, v = self.state[id(p)]
            m.mul_(b1).add_(grad, alpha=1 - b1)
            v.mul_(b2).addcmul_(grad, grad, value=1 - b2)
            denom = (v / (1 - b2 ** self.step_id)).sqrt_().add_(self.eps)
            master.addcdiv_(m, denom, value=-self.lr / (1 - b1 ** self.step_id))
            p.data.copy_(master.to(p.dtype), non_blocking=True)
        return True
