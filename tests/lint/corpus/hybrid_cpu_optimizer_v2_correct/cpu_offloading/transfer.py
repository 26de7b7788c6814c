from typing import Dict

import torch

from .param_split import iter_params


def stage_grads_on_host(
    cpu_optimizer: torch.optim.Optimizer,
    cpu_copy_to_gpu_param: Dict[torch.Tensor, torch.Tensor],
    host_grads: Dict[torch.Tensor, torch.Tensor],
    pin_memory: bool,
) -> None:
    """Points every host parameter's `.grad` at a host buffer and starts the D2H copy into it."""
    for param in iter_params(cpu_optimizer):
        gpu_param = cpu_copy_to_gpu_param[param]
        grad = getattr(gpu_param, "main_grad", gpu_param.grad)
        if grad is None:
            param.grad = None
            continue
        if param not in host_grads:
            host_grads[param] = torch.empty(param.shape, dtype=param.dtype, device="cpu", pin_memory=pin_memory)
        param.grad = host_grads[param]
        host_grads[param].copy_(grad, non_blocking=True)


def copy_params_to_device(
    cpu_optimizer: torch.optim.Optimizer, cpu_copy_to_gpu_param: Dict[torch.Tensor, torch.Tensor]
) -> None:
    for param in iter_params(cpu_optimizer):
        cpu_copy_to_gpu_param[param].data.copy_(param.data, non_blocking=True)
