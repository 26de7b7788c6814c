from typing import Any, List, Tuple

import torch

ParamLayout = List[Tuple[str, torch.Size, int, int]]


def flatten_to_pinned(module: torch.nn.Module, dtype: torch.dtype) -> Tuple[torch.Tensor, ParamLayout]:
    """Packs the parameters of `module` into one pinned host tensor and records their layout."""
    layout: ParamLayout = []
    offset = 0
    for name, param in module.named_parameters(recurse=True):
        layout.append((name, param.shape, offset, param.numel()))
        offset += param.numel()
    flat = torch.empty(offset, dtype=dtype, pin_memory=True)
    for (name, shape, start, numel), param in zip(layout, module.parameters(recurse=True)):
        flat[start:start + numel].copy_(param.detach().reshape(-1))
    return flat, layout


def bind_params(module: torch.nn.Module, flat: torch.Tensor, layout: ParamLayout) -> None:
    params = dict(module.named_parameters(recurse=True))
    for name, shape, start, numel in layout:
        params[name].data = flat[start:start + numel].view(shape)


def send_to_device(tensor: Any, device: torch.device, non_blocking: bool = False) -> Any:
    if isinstance(tensor, (list, tuple)):
        return type(tensor)(send_to_device(t, device, non_blocking) for t in tensor)
    if isinstance(tensor, dict):
        return {k: send_to_device(v, device, non_blocking) for k, v in tensor.items()}
    if isinstance(tensor, torch.Tensor):
        return tensor.to(device, non_blocking=non_blocking)
    return tensor
