"""Contiguous parameter/gradient buffers in the shape of Megatron's _ParamAndGradBuffer."""

from dataclasses import dataclass
from typing import List

import torch


@dataclass
class ParamAndGradBuffer:
    name: str
    param_data: torch.Tensor
    grad_data: torch.Tensor
    params: List[torch.nn.Parameter]

    @classmethod
    def build(cls, name, params, dtype, device):
        numel = sum(p.numel() for p in params)
        param_data = torch.empty(numel, dtype=dtype, device=device)
        grad_data = torch.zeros(numel, dtype=torch.float32, device=device)
        offset = 0
        for p in params:
            n = p.numel()
            param_data.narrow(0, offset, n).copy_(p.data.view(-1))
            p.data = param_data.narrow(0, offset, n).view_as(p)
            p.main_grad = grad_data.narrow(0, offset, n).view_as(p)
            offset += n
        return cls(name, param_data, grad_data, list(params))

    @property
    def nbytes(self):
        return self.param_data.numel() * self.param_data.element_size()

    def release_device_storage(self):
        self.param_data.untyped_storage().resize_(0)
        self.grad_data.untyped_storage().resize_(0)

    def restore_device_storage(self):
        self.param_data.untyped_storage().resize_(self.param_data.numel() * self.param_data.element_size())
        self.grad_data.untyped_storage().resize_(self.grad_data.numel() * self.grad_data.element_size())
        self.grad_data.zero_()
