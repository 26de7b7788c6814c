from dataclasses import dataclass
from typing import Any, Union

import torch
import torch.nn as nn

DeviceLike = Union[int, str, torch.device]


@dataclass(frozen=True)
class ParamSlice:
    name: str
    shape: torch.Size
    offset: int
    numel: int


def device_module(device: DeviceLike) -> Any:
    """``torch.cuda`` / ``torch.xpu`` / ``torch.npu`` ... for the given execution device."""
    return torch.get_device_module(torch.device(device))


def flatten_to_host(module: nn.Module, pin_memory: bool) -> tuple[torch.Tensor, list[ParamSlice]]:
    named = [(n, p) for n, p in module.named_parameters() if p is not None]
    if not named:
        raise ValueError(f"{type(module).__name__} has no parameters to offload")
    dtype = named[0][1].dtype
    layout, offset = [], 0
    for name, param in named:
        layout.append(ParamSlice(name, param.shape, offset, param.numel()))
        offset += param.numel()
    host_flat = torch.empty(offset, dtype=dtype, pin_memory=pin_memory)
    for sl, (_, param) in zip(layout, named):
        host_flat[sl.offset:sl.offset + sl.numel].copy_(param.detach().reshape(-1).to(dtype))
    return host_flat, layout


def _resolve(module: nn.Module, dotted: str) -> tuple[nn.Module, str]:
    *path, leaf = dotted.split(".")
    for part in path:
        module = getattr(module, part)
    return module, leaf


def bind_views(module: nn.Module, flat: torch.Tensor, layout: list[ParamSlice]) -> None:
    for sl in layout:
        owner, leaf = _resolve(module, sl.name)
        view = flat[sl.offset:sl.offset + sl.numel].view(sl.shape)
        owner._parameters[leaf] = nn.Parameter(view, requires_grad=False)
