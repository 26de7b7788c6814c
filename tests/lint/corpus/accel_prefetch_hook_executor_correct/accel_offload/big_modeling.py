"""Entry point in the shape of accelerate's ``cpu_offload``: attach the streaming hooks to every
block of a decoder and run a forward."""

import torch

from .hooks import PrefetchOffloadHook, add_hook_to_module
from .streamer import BlockWeightStreamer


def cpu_offload_with_prefetch(model: torch.nn.Module, execution_device="cuda:0", dtype=torch.float16):
    blocks = list(model.layers)
    max_numel = max(sum(p.numel() for p in block.parameters()) for block in blocks)
    streamer = BlockWeightStreamer(torch.device(execution_device), max_numel, dtype)
    for idx, block in enumerate(blocks):
        add_hook_to_module(block, PrefetchOffloadHook(streamer, idx, torch.device(execution_device)))
    model._weight_streamer = streamer
    return model


@torch.no_grad()
def run_offloaded(model: torch.nn.Module, hidden_states: torch.Tensor, steps: int = 1):
    for _ in range(steps):
        for block in model.layers:
            hidden_states = block(hidden_states)
    return hidden_states
