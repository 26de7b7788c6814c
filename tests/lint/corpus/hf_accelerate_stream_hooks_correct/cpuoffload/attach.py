"""Attach StreamedOffloadHook to every module that owns parameters, as cpu_offload() does."""

import torch

from .hooks import StreamedOffloadHook


def cpu_offload_with_stream(model, execution_device="cuda"):
    stream = torch.cuda.Stream(execution_device)
    hooks = {}
    for name, module in model.named_modules():
        if next(module.parameters(recurse=False), None) is None:
            continue
        hook = StreamedOffloadHook(execution_device, stream=stream)
        hook.init_hook(module)
        module.register_forward_pre_hook(hook.pre_forward)
        module.register_forward_hook(hook.post_forward)
        hooks[name] = hook
    return hooks


def train_step(model, hooks, batch, optimizer, log):
    output = model(batch)
    loss = output.float().mean()
    loss.backward()
    optimizer.step()
    for name, hook in hooks.items():
        log(name, hook.running_stats())
    return loss.detach()
