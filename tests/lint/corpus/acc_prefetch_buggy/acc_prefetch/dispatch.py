"""Attach prefetching offload hooks to the leaf layers of a model."""
import functools

import torch
import torch.nn as nn

from .hooks import PrefetchCpuOffloadHook
from .slots import WeightSlotPool


def _wrap_forward(module: nn.Module, hook: PrefetchCpuOffloadHook) -> None:
    old_forward = module.forward

    @functools.wraps(old_forward)
    def new_forward(*args, **kwargs):
        args, kwargs = hook.pre_forward(module, *args, **kwargs)
        return hook.post_forward(module, old_forward(*args, **kwargs))

    module.forward = new_forward
    module._hf_hook = hook


def dispatch_with_prefetch(model: nn.Module, execution_device, dtype=torch.float16) -> WeightSlotPool:
    leaves = [
        m for m in model.modules()
        if not list(m.children()) and any(True for _ in m.parameters(recurse=False))
    ]
    numel = max(sum(p.numel() for p in m.parameters(recurse=False)) for m in leaves)
    pool = WeightSlotPool(numel, dtype, execution_device)
    hooks = []
    for idx, module in enumerate(leaves):
        module.to(dtype)
        hook = PrefetchCpuOffloadHook(idx, pool, execution_device)
        hook.init_hook(module)
        _wrap_forward(module, hook)
        hooks.append(hook)
    # while layer i runs, layer i + 1 is copied in behind it
    for hook, nxt in zip(hooks, hooks[1:]):
        hook.on_enter = functools.partial(PrefetchCpuOffloadHook.prefetch, nxt)
    return pool
