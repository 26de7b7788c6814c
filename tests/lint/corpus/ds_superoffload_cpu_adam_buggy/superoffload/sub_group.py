"""Flat device parameter/gradient storage of one sub-group and its pinned host mirrors."""

import torch
from deepspeed.accelerator import get_accelerator


class SubGroup:
    def __init__(self, index, params):
        self.index = index
        self.params = list(params)
        self.numel = sum(p.numel() for p in self.params)
        device = get_accelerator().current_device_name()
        dtype = self.params[0].dtype
        self.flat_param = torch.empty(self.numel, dtype=dtype, device=device)
        self.flat_grad = torch.zeros(self.numel, dtype=torch.float32, device=device)
        offset = 0
        for p in self.params:
            n = p.numel()
            self.flat_param.narrow(0, offset, n).copy_(p.data.view(-1))
            p.data = self.flat_param.narrow(0, offset, n).view_as(p)
            offset += n
        self.pending = len(self.params)

        acc = get_accelerator()
        self.grad_host = acc.pin_memory(torch.empty(self.numel, dtype=torch.float32))
        self.master = acc.pin_memory(self.flat_param.detach().float().cpu())
        self.exp_avg = torch.zeros(self.numel, dtype=torch.float32)
        self.exp_avg_sq = torch.zeros(self.numel, dtype=torch.float32)

    def grad_slice(self, param):
        offset = 0
        for p in self.params:
            if p is param:
                return self.flat_grad.narrow(0, offset, p.numel()).view_as(p)
            offset += p.numel()
        raise KeyError("parameter is not in this sub-group")

    def reset(self):
        self.pending = len(self.params)
        self.flat_grad.zero_()
