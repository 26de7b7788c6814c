import torch

from .swapper import SubGroupSwapper


class InfinityAdam:
    """Steps one sub-group at a time: swap in, fused Adam on the device views, swap out."""

    def __init__(self, subgroup_numels, swap_folder, aio_handle, lr=1e-4, betas=(0.9, 0.999), eps=1e-8):
        self.subgroup_numels = subgroup_numels
        self.swapper = SubGroupSwapper(swap_folder, aio_handle, max(subgroup_numels))
        self.lr, self.betas, self.eps = lr, betas, eps
        self.step_count = 0

    @torch.no_grad()
    def step(self, flat_grads):
        self.step_count += 1
        beta1, beta2 = self.betas
        bias1 = 1 - beta1 ** self.step_count
        bias2 = 1 - beta2 ** self.step_count
        for sub_group_id, numel in enumerate(self.subgroup_numels):
            state = self.swapper.swap_in(sub_group_id, numel)
            grad = flat_grads[sub_group_id]
            state["exp_avg"].mul_(beta1).add_(grad, alpha=1 - beta1)
            state["exp_avg_sq"].mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
            denom = (state["exp_avg_sq"] / bias2).sqrt_().add_(self.eps)
            state["param"].addcdiv_(state["exp_avg"], denom, value=-self.lr / bias1)
            self.swapper.swap_out(sub_group_id, numel)
