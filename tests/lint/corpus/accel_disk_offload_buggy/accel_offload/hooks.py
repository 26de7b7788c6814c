# Copyright 2024 The HuggingFace Team. All rights reserved.
from typing import Any, Dict, Tuple

import torch
import torch.nn as nn
from safetensors import safe_open

from .offload import OffloadedWeightsWriter


def _set_param(module: nn.Module, name: str, value: torch.Tensor) -> None:
    old = module._parameters[name]
    module._parameters[name] = nn.Parameter(value, requires_grad=old.requires_grad)


class DiskOffloadHook:
    """Keeps a module's own parameters on disk and materializes them for each forward."""

    def __init__(self, prefix: str, execution_device: torch.device, writer: OffloadedWeightsWriter):
        self.prefix = prefix
        self.execution_device = execution_device
        self.writer = writer
        self.param_names: Tuple[str, ...] = ()

    def init_hook(self, module: nn.Module) -> nn.Module:
        params = dict(module.named_parameters(recurse=False))
        self.param_names = tuple(params)
        self.writer.offload({self.prefix + n: p for n, p in params.items()})
        for name, param in params.items():
            _set_param(module, name, torch.empty_like(param, device="meta"))
        return module

    def pre_forward(self, module: nn.Module, *args, **kwargs) -> Tuple[Tuple[Any, ...], Dict]:
        self.writer.wait_until_written()
        for name in self.param_names:
            full_name = self.prefix + name
            with safe_open(self.writer.weight_path(full_name), framework="pt",
                           device=str(self.execution_device)) as f:
                _set_param(module, name, f.get_tensor(full_name))
        return args, kwargs

    def post_forward(self, module: nn.Module, output: Any) -> Any:
        for name in self.param_names:
            _set_param(module, name, torch.empty_like(module._parameters[name], device="meta"))
        return output


def attach_disk_offload_hook(module: nn.Module, hook: DiskOffloadHook) -> nn.Module:
    hook.init_hook(module)
    module.register_forward_pre_hook(lambda m, a, k: hook.pre_forward(m, *a, **k), with_kwargs=True)
    module.register_forward_hook(lambda m, a, out: hook.post_forward(m, out))
    return module
