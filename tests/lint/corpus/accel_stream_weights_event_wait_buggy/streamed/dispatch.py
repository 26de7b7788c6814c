import torch

from .hooks import ModelHook, add_hook_to_module
from .prefetch import SlotRing, StreamedWeightsHook


class FetchFirstLayerHook(ModelHook):
    """Put on the whole model: every forward pass starts by fetching the first streamed layer."""

    def __init__(self, first):
        self.first = first

    def pre_forward(self, module, *args, **kwargs):
        self.first.fetch()
        return args, kwargs


def _flatten_to_pinned(layer):
    offsets, start = {}, 0
    for name, param in layer.named_parameters(recurse=True):
        offsets[name] = (start, param.shape)
        start += param.numel()
    dtype = next(layer.parameters()).dtype
    host_flat = torch.empty(start, dtype=dtype, pin_memory=True)
    for name, param in layer.named_parameters(recurse=True):
        s, _ = offsets[name]
        host_flat[s:s + param.numel()].copy_(param.detach().reshape(-1))
    return host_flat, offsets


def dispatch_streamed(model, layers, device="cuda:0"):
    """Stream ``layers`` (a ModuleList of identical decoder blocks) through two device slots."""
    flats = [_flatten_to_pinned(layer) for layer in layers]
    numel = max(flat.numel() for flat, _ in flats)
    ring = SlotRing(numel=numel, dtype=flats[0][0].dtype, device=torch.device(device))
    hooks = [StreamedWeightsHook(ring, i, flat, offsets) for i, (flat, offsets) in enumerate(flats)]
    for layer, hook, next_hook in zip(layers, hooks, hooks[1:] + [None]):
        hook.next_hook = next_hook
        add_hook_to_module(layer, hook)
    return add_hook_to_module(model, FetchFirstLayerHook(hooks[0]))
