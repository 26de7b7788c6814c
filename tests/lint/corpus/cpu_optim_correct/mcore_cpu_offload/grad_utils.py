from typing import Iterable

import torch


def host_grads_are_finite(grads: Iterable[torch.Tensor]) -> bool:
    for grad in grads:
        if not bool(torch.isfinite(grad).all()):
            return False
    return True


def host_grad_norm_sq(grads: Iterable[torch.Tensor]) -> float:
    total = 0.0
    for grad in grads:
        total += float(grad.float().pow(2).sum())
    return total
