"""accelerate-style forward hooks that stream layer weights from host memory."""
import functools
from typing import Dict, Optional, Tuple

import torch
from torch import nn

from .settings import OFFLOAD_DTYPE
from .weight_slots import WeightSlotPool


class ModelHook:
    def init_hook(self, module: nn.Module) -> nn.Module:
        return module

    def pre_forward(self, module: nn.Module, *args, **kwargs):
        return args, kwargs

    def post_forward(self, module: nn.Module, output):
        return output


def add_hook_to_module(module: nn.Module, hook: ModelHook) -> nn.Module:
    module = hook.init_hook(module)
    module._hf_hook = hook
    old_forward = module.forward

    @functools.wraps(old_forward)
    def new_forward(*args, **kwargs):
        args, kwargs = module._hf_hook.pre_forward(module, *args, **kwargs)
        output = old_forward(*args, **kwargs)
        return module._hf_hook.post_forward(module, output)

    module.forward = new_forward
    return module


def _set_param(module: nn.Module, name: str, value: torch.Tensor) -> None:
    *path, leaf = name.split(".")
    for part in path:
        module = getattr(module, part)
    module._parameters[leaf] = nn.Parameter(value, requires_grad=False)


class LayerPrefetchHook(ModelHook):
    def __init__(self, layer_idx: int, pool: WeightSlotPool, load_stream: torch.cuda.Stream):
        self.layer_idx = layer_idx
        self.pool = pool
        self.load_stream = load_stream
        self.next_hook: Optional["LayerPrefetchHook"] = None
        self.layout: Dict[str, Tuple[int, int, torch.Size]] = {}
        self._loaded: Optional[torch.cuda.Event] = None

    def init_hook(self, module: nn.Module) -> nn.Module:
        chunks, offset = [], 0
        for name, param in module.named_parameters():
            self.layout[name] = (offset, param.numel(), param.shape)
            chunks.append(param.detach().reshape(-1).to(dtype=OFFLOAD_DTYPE))
            offset += param.numel()
        self.host_flat = torch.cat(chunks).pin_memory()
        return module

    def prefetch(self) -> None:
        slot = self.pool.slot_for(self.layer_idx)
        dst = self.pool.buffers[slot][: self.host_flat.numel()]
        self.pool.wait_released(slot, torch.cuda.current_stream())
        with torch.cuda.stream(self.load_stream):
            # expect: KVG004
            dst.copy_(self.host_flat, non_blocking=True)
            self._loaded = torch.cuda.Event()
            self._loaded.record()

    def pre_forward(self, module: nn.Module, *args, **kwargs):
        if self._loaded is None:
            self.prefetch()
        torch.cuda.current_stream().wait_event(self._loaded)
        self._loaded = None
        flat = self.pool.buffers[self.pool.slot_for(self.layer_idx)]
        for name, (offset, numel, shape) in self.layout.items():
            _set_param(module, name, flat[offset : offset + numel].view(shape))
        if self.next_hook is not None:
            self.next_hook.prefetch()
        return args, kwargs

    def post_forward(self, module: nn.Module, output):
        self.pool.mark_released(self.pool.slot_for(self.layer_idx))
        return output
