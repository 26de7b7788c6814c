# Copyright 2024 The HuggingFace Team. All rights reserved.
from __future__ import annotations

from typing import Dict, Sequence

import torch
import torch.nn as nn

from .hooks import ModelHook, add_hook_to_module
from .weight_slots import FlatWeights, GpuSlotPool, bind_flat_to_module


class _PrefetchRuntime:
    def __init__(self, modules: Sequence[nn.Module], execution_device: torch.device):
        self.device = torch.device(execution_device)
        self.weights = [FlatWeights.from_module(m) for m in modules]
        max_numel = max(w.numel for w in self.weights)
        self.pool = GpuSlotPool(max_numel, self.weights[0].cpu_flat.dtype, self.device)
        self.stream = torch.cuda.Stream(self.device)
        self.ready: Dict[int, torch.cuda.Event] = {}

    def prefetch(self, index: int) -> None:
        if index >= len(self.weights) or index in self.ready:
            return
        src = self.weights[index].cpu_flat
        dst = self.pool.slot_for(index)[: src.numel()]
        with torch.cuda.stream(self.stream):
            # expect: KVG004
            dst.copy_(src, non_blocking=True)
            event = torch.cuda.Event()
            event.record(self.stream)
        self.ready[index] = event

    def ensure_loaded(self, index: int) -> torch.Tensor:
        src = self.weights[index].cpu_flat
        dst = self.pool.slot_for(index)[: src.numel()]
        event = self.ready.pop(index, None)
        if event is None:
            # Not prefetched (first module of the pass): load on the compute stream.
            dst.copy_(src, non_blocking=True)
        else:
            torch.cuda.current_stream(self.device).wait_event(event)
        return dst


class PrefetchingCpuOffloadHook(ModelHook):
    """Keeps a module's weights in pinned CPU memory, materialises them in a
    shared device slot right before forward and prefetches the next module."""

    def __init__(self, index: int, runtime: _PrefetchRuntime):
        self.index = index
        self.runtime = runtime

    def pre_forward(self, module, *args, **kwargs):
        flat = self.runtime.ensure_loaded(self.index)
        bind_flat_to_module(module, self.runtime.weights[self.index], flat)
        self.runtime.prefetch(self.index + 1)
        args = tuple(a.to(self.runtime.device, non_blocking=True) if torch.is_tensor(a) else a for a in args)
        return args, kwargs

    def post_forward(self, module, output):
        weights = self.runtime.weights[self.index]
        bind_flat_to_module(module, weights, weights.cpu_flat)
        return output


def cpu_offload_with_prefetch(
    modules: Sequence[nn.Module], execution_device: torch.device | str = "cuda"
) -> list[nn.Module]:
    """Sequentially-executed blocks (e.g. decoder layers) offloaded to CPU with one-ahead prefetch."""
    runtime = _PrefetchRuntime(modules, torch.device(execution_device))
    hooked = []
    for i, module in enumerate(modules):
        hooked.append(add_hook_to_module(module, PrefetchingCpuOffloadHook(i, runtime)))
    return hooked
