"""Gradient-norm clipping over gradients that live in pinned host memory."""


def clip_cpu_grads_(handles, max_norm):
    total_sq = 0.0
    for handle in handles:
        # expect: KVG003
        total_sq += handle.cpu_grad.norm().item() ** 2
    total = total_sq ** 0.5
    if total > max_norm:
        scale = max_norm / (total + 1e-6)
        for handle in handles:
            handle.cpu_grad.mul_(scale)
    return total
