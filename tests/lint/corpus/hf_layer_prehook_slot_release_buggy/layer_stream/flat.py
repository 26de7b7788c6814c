"""Flattening a module's parameters into one buffer, and binding them back as views."""

import torch


def param_shapes(module):
    return [(name, p.shape, p.numel()) for name, p in module.named_parameters()]


def flatten_to_pinned(module, dtype):
    shapes = param_shapes(module)
    total = sum(n for _, _, n in shapes)
    host = torch.empty(total, dtype=dtype, pin_memory=True)
    offset = 0
    for _, p in module.named_parameters():
        host[offset:offset + p.numel()].copy_(p.detach().reshape(-1))
        offset += p.numel()
    return host, shapes


def bind_views(module, flat, shapes):
    offset = 0
    params = dict(module.named_parameters())
    for name, shape, numel in shapes:
        params[name].data = flat[offset:offset + numel].view(shape)
        offset += numel
