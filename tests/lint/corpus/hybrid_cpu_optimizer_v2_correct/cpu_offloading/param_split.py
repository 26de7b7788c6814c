from typing import Any, Dict, List, Tuple

import torch


def split_param_groups(
    param_groups: List[Dict[str, Any]], offload_fraction: float, pin_cpu_params: bool
) -> Tuple[List[Dict[str, Any]], List[Dict[str, Any]], Dict[torch.Tensor, torch.Tensor]]:
    """Moves the first `offload_fraction` of device parameters (by numel) to host copies."""
    device_numel = sum(p.numel() for g in param_groups for p in g["params"] if p.is_cuda)
    threshold = device_numel * offload_fraction
    offloaded = 0
    cpu_groups, gpu_groups = [], []
    cpu_copy_to_gpu_param: Dict[torch.Tensor, torch.Tensor] = {}
    for group in param_groups:
        cpu_group = {k: v for k, v in group.items() if k != "params"}
        gpu_group = dict(cpu_group)
        cpu_group["params"], gpu_group["params"] = [], []
        for param in group["params"]:
            if param.is_cuda and offloaded < threshold:
                cpu_param = param.detach().clone().cpu()
                if pin_cpu_params:
                    cpu_param = cpu_param.pin_memory()
                cpu_copy_to_gpu_param[cpu_param] = param
                cpu_group["params"].append(cpu_param)
                offloaded += param.numel()
            else:
                gpu_group["params"].append(param)
        if cpu_group["params"]:
            cpu_groups.append(cpu_group)
        if gpu_group["params"]:
            gpu_groups.append(gpu_group)
    return cpu_groups, gpu_groups, cpu_copy_to_gpu_param


def iter_params(optimizer: torch.optim.Optimizer):
    for group in optimizer.param_groups:
        yield from group["params"]
