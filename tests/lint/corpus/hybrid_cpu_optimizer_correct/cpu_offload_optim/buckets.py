# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
from dataclasses import dataclass, field
from typing import List

import torch


@dataclass
class HostBucket:
    """Host-side mirror of a group of device parameters updated by the CPU optimizer."""

    device_params: List[torch.nn.Parameter]
    cpu_params: List[torch.Tensor] = field(default_factory=list)
    cpu_grads: List[torch.Tensor] = field(default_factory=list)
    exp_avgs: List[torch.Tensor] = field(default_factory=list)
    exp_avg_sqs: List[torch.Tensor] = field(default_factory=list)
    step: int = 0

    @classmethod
    def build(cls, params: List[torch.nn.Parameter], pin_grads: bool, pin_params: bool) -> "HostBucket":
        bucket = cls(device_params=list(params))
        for p in bucket.device_params:
            cpu_param = torch.empty(p.shape, dtype=torch.float32, device="cpu", pin_memory=pin_params)
            cpu_param.copy_(p.detach())
            bucket.cpu_params.append(cpu_param)
            bucket.cpu_grads.append(torch.empty(p.shape, dtype=p.dtype, device="cpu", pin_memory=pin_grads))
            bucket.exp_avgs.append(torch.zeros_like(cpu_param))
            bucket.exp_avg_sqs.append(torch.zeros_like(cpu_param))
        return bucket

    def numel(self) -> int:
        return sum(p.numel() for p in self.device_params)
