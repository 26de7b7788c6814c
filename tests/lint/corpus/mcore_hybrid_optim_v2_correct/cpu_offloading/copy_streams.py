from typing import Tuple

import torch


def make_copy_streams(overlap: bool) -> Tuple[torch.cuda.Stream, torch.cuda.Stream]:
    """Returns the (d2h, h2d) streams used by the hybrid optimizer."""
    if overlap:
        return torch.cuda.Stream(), torch.cuda.Stream()
    current = torch.cuda.current_stream()
    return current, current


def stage_grads_to_host(params, cpu_copys_map_gpu_param, cpu_copy_map_grad, pin_memory: bool):
    """Enqueues D2H copies of the GPU grads of `params` on the current stream."""
    for param in params:
        gpu_param = cpu_copys_map_gpu_param[param]
        grad = getattr(gpu_param, "decoupled_grad", gpu_param.grad)
        if grad is None:
            param.requires_grad = False
            continue
        param.requires_grad = False
        if param not in cpu_copy_map_grad:
            cpu_copy_map_grad[param] = torch.empty(
                param.shape, dtype=param.dtype, pin_memory=pin_memory, device="cpu"
            )
            param.grad = cpu_copy_map_grad[param]
        cpu_copy_map_grad[param].data.copy_(grad, non_blocking=True)
