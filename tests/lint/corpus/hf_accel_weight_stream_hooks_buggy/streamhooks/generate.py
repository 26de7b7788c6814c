"""Greedy decoding over a stack of streamed layers."""

import torch

from .hooks import LayerwiseStreamer


@torch.no_grad()
def run_stack(layers, hidden, steps, dump_path=None):
    streamer = LayerwiseStreamer(layers, collect_hidden=dump_path is not None)
    streamer.attach()
    for _ in range(steps):
        streamer.prefetch(0)
        h = hidden
        for layer in layers:
            h = layer(h)
        hidden = h
    if dump_path is not None:
        with open(dump_path, "wb") as fh:
            streamer.drain_hidden(fh)
    return hidden
