# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
"""Gradient clipping."""
from typing import List

import torch


def get_grad_norm_fp32(grads: List[torch.Tensor], norm_type: float = 2.0) -> float:
    """Global norm of a list of grads; returns a python float."""
    if len(grads) == 0:
        return 0.0
    norms = torch.stack([torch.linalg.vector_norm(g.float(), norm_type) for g in grads])
    total_norm = torch.linalg.vector_norm(norms, norm_type)
    return total_norm.item()


def clip_grad_by_total_norm_fp32(grads: List[torch.Tensor], max_norm: float, total_norm: float) -> None:
    """Scales grads in place on the current stream."""
    clip_coeff = max_norm / (total_norm + 1.0e-6)
    if clip_coeff < 1.0:
        torch._foreach_mul_(grads, clip_coeff)


def clip_grad_norm_fp32(grads: List[torch.Tensor], max_norm: float) -> float:
    total_norm = get_grad_norm_fp32(grads)
    clip_grad_by_total_norm_fp32(grads, max_norm, total_norm)
    return total_norm
