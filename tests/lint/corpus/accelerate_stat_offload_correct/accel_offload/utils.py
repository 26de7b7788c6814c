from typing import Any, Dict, Iterable, Iterator, Tuple

import torch
import torch.nn as nn


def named_module_tensors(module: nn.Module) -> Iterator[Tuple[str, torch.Tensor]]:
    yield from module.named_parameters(recurse=True)
    yield from module.named_buffers(recurse=True)


def send_to_device(obj: Any, device: torch.device, non_blocking: bool = True) -> Any:
    if isinstance(obj, torch.Tensor):
        return obj.to(device, non_blocking=non_blocking)
    if isinstance(obj, (list, tuple)):
        return type(obj)(send_to_device(o, device, non_blocking) for o in obj)
    if isinstance(obj, dict):
        return {k: send_to_device(v, device, non_blocking) for k, v in obj.items()}
    return obj


def build_weights_map(module: nn.Module) -> Dict[str, torch.Tensor]:
    return {name: t.detach().to("cpu").pin_memory() for name, t in named_module_tensors(module)}


def load_module_tensors(module: nn.Module, weights_map: Dict[str, torch.Tensor], device: torch.device) -> None:
    for name, tensor in named_module_tensors(module):
        tensor.data = weights_map[name].to(device, non_blocking=True)


def release_module_tensors(module: nn.Module, weights_map: Dict[str, torch.Tensor]) -> None:
    for name, tensor in named_module_tensors(module):
        tensor.data = weights_map[name]


def offload_buffers_to_host(
    module: nn.Module, weights_map: Dict[str, torch.Tensor], names: Iterable[str], stream: torch.Stream
) -> None:
    for name in names:
        buffer = module.get_buffer(name)
        weights_map[name].copy_(buffer.detach(), non_blocking=True)
        buffer.record_stream(stream)
