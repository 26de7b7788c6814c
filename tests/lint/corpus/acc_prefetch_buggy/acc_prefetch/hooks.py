"""CPU offload hook that prefetches the next layer's weights on its own stream."""
from typing import Callable, Optional

import torch
import torch.nn as nn

from .constants import PIN_CPU_WEIGHTS, PREFETCH_STREAM_PRIORITY
from .slots import WeightSlotPool


class PrefetchCpuOffloadHook:
    def __init__(self, layer_idx: int, pool: WeightSlotPool, execution_device):
        self.layer_idx = layer_idx
        self.pool = pool
        self.execution_device = torch.device(execution_device)
        self.stream = torch.cuda.Stream(device=self.execution_device, priority=PREFETCH_STREAM_PRIORITY)
        self.cpu_weights: dict[str, torch.Tensor] = {}
        self.views: dict[str, torch.Tensor] = {}
        self.loaded: Optional[torch.cuda.Event] = None
        self.on_enter: Optional[Callable[[], None]] = None

    def init_hook(self, module: nn.Module) -> nn.Module:
        for name, param in module.named_parameters(recurse=False):
            host = param.detach().to("cpu")
            self.cpu_weights[name] = host.pin_memory() if PIN_CPU_WEIGHTS else host
            module._parameters[name] = nn.Parameter(torch.empty_like(host, device="meta"), requires_grad=False)
        return module

    def prefetch(self) -> None:
        if self.loaded is not None:
            return
        slot = self.pool.slot_for(self.layer_idx)
        with torch.cuda.stream(self.stream):
            flat = self.pool.claim(slot, self.stream)
            offset = 0
            for name, host in self.cpu_weights.items():
                dst = flat.narrow(0, offset, host.numel()).view(host.shape)
                # expect: KVG004
                dst.copy_(host, non_blocking=True)
                self.views[name] = dst
                offset += host.numel()
            self.loaded = torch.cuda.Event()
            self.loaded.record(self.stream)

    def pre_forward(self, module: nn.Module, *args, **kwargs):
        self.prefetch()
        torch.cuda.current_stream(self.execution_device).wait_event(self.loaded)
        for name, view in self.views.items():
            module._parameters[name] = nn.Parameter(view, requires_grad=False)
        if self.on_enter is not None:
            self.on_enter()
        return args, kwargs

    def post_forward(self, module: nn.Module, output):
        self.pool.mark_released(self.pool.slot_for(self.layer_idx))
        for name, host in self.cpu_weights.items():
            module._parameters[name] = nn.Parameter(torch.empty_like(host, device="meta"), requires_grad=False)
        self.views.clear()
        self.loaded = None
        return output
