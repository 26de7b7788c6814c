"""Moving parameter storage around."""

import torch


def empty_strided_like(x, device, pin_memory=False):
    return torch.empty_strided(
        size=x.size(), stride=x.stride(), dtype=x.dtype, layout=x.layout, device=device, pin_memory=pin_memory
    )


def move_param_to_cpu(param):
    cpu_data = empty_strided_like(param.data, device="cpu", pin_memory=True)
    cpu_data.copy_(param.data)
    param.data = cpu_data
