"""Attach the stateful offload hook to every EMANorm of a model."""

import torch
from accelerate.hooks import add_hook_to_module, remove_hook_from_module

from .hooks import StatefulBufferOffloadHook
from .modules import EMANorm, StreamingBlock


def attach_stateful_offload(model, execution_device="cuda"):
    hooks = []
    for module in model.modules():
        if isinstance(module, EMANorm):
            hook = StatefulBufferOffloadHook(execution_device, ["running_mean", "running_var"])
            add_hook_to_module(module, hook)
            hooks.append(hook)
    return hooks


def detach_stateful_offload(model):
    for module in model.modules():
        if isinstance(module, EMANorm):
            remove_hook_from_module(module)


@torch.no_grad()
def run_stream(chunks, hidden=1024, depth=8, device="cuda"):
    model = torch.nn.Sequential(*(StreamingBlock(hidden) for _ in range(depth))).to(device)
    attach_stateful_offload(model, device)
    outputs = [model(chunk.to(device, non_blocking=True)) for chunk in chunks]
    detach_stateful_offload(model)
    return outputs
