# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
import torch


def copy_grad_to_host(cpu_grad: torch.Tensor, gpu_grad: torch.Tensor) -> None:
    # expect: KVG001
    cpu_grad.copy_(gpu_grad, non_blocking=True)


def copy_param_to_device(gpu_param: torch.Tensor, cpu_param: torch.Tensor) -> None:
    gpu_param.data.copy_(cpu_param.data, non_blocking=True)


def empty_host_like(tensor: torch.Tensor, pin_memory: bool) -> torch.Tensor:
    return torch.empty(tensor.shape, dtype=torch.float32, device="cpu", pin_memory=pin_memory)
