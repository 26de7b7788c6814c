from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import torch
from torch import nn

from ._device import pin


@dataclass
class FlatParamHandle:
    """One sharded flat parameter plus its pinned CPU mirrors."""

    fqn: str
    flat_param: nn.Parameter
    cpu_param: torch.Tensor
    cpu_grad: torch.Tensor
    shapes: list[torch.Size] = field(default_factory=list)
    grad_offloaded: bool = False

    @classmethod
    def from_params(
        cls, fqn: str, params: Sequence[nn.Parameter], device: torch.device
    ) -> "FlatParamHandle":
        shapes = [p.shape for p in params]
        flat = torch.cat([p.detach().reshape(-1) for p in params]).to(device)
        cpu_param = pin(flat.detach().cpu())
        cpu_grad = torch.zeros_like(cpu_param, pin_memory=True)
        return cls(fqn, nn.Parameter(flat), cpu_param, cpu_grad, shapes)

    @property
    def numel(self) -> int:
        return self.flat_param.numel()

    def views(self) -> list[torch.Tensor]:
        out, offset = [], 0
        for shape in self.shapes:
            n = shape.numel()
            out.append(self.flat_param[offset : offset + n].view(shape))
            offset += n
        return out
