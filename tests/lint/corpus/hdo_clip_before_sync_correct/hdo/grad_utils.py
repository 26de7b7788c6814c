"""Gradient helpers shared by the GPU and the CPU half of the hybrid optimizer."""

import torch


def clip_cpu_grads_(grads, max_norm, norm_type=2.0, eps=1e-6):
    """Clip host-resident gradients in place; returns the total norm as a python float."""
    grads = [g for g in grads if g is not None]
    if not grads:
        return 0.0
    per_tensor = torch.stack([g.norm(norm_type) for g in grads])
    total = per_tensor.norm(norm_type).item()
    clip_coef = max_norm / (total + eps)
    if clip_coef < 1.0:
        for g in grads:
            g.mul_(clip_coef)
    return total
