# Copyright (c) 2024, NVIDIA CORPORATION. All rights reserved.
from __future__ import annotations

from dataclasses import dataclass, field

import torch


@dataclass
class _ParamAndGradBucket:
    """Contiguous slice of the DDP param/grad buffers owned by this rank."""

    bucket_id: int
    param_data: torch.Tensor  # model-dtype params on GPU, views handed to the modules
    grad_data: torch.Tensor  # fp32 main_grad shard after reduce-scatter


@dataclass
class _CpuBucketState:
    cpu_grad: torch.Tensor
    cpu_param: torch.Tensor
    main_param: torch.Tensor
    exp_avg: torch.Tensor
    exp_avg_sq: torch.Tensor
    d2h_event: torch.cuda.Event = field(default_factory=torch.cuda.Event)
    h2d_event: torch.cuda.Event = field(default_factory=torch.cuda.Event)

    @classmethod
    def for_bucket(cls, bucket: _ParamAndGradBucket) -> "_CpuBucketState":
        numel = bucket.param_data.numel()
        main_param = bucket.param_data.detach().float().cpu()
        return cls(
            cpu_grad=torch.empty(numel, dtype=torch.float32, pin_memory=True),
            cpu_param=torch.empty(numel, dtype=bucket.param_data.dtype, pin_memory=True),
            main_param=main_param,
            exp_avg=torch.zeros_like(main_param),
            exp_avg_sq=torch.zeros_like(main_param),
        )
