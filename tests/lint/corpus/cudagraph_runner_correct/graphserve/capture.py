from __future__ import annotations

from typing import Callable

import torch

from .spec import StaticIO

DecodeFn = Callable[..., torch.Tensor]


def _run_once(decode: DecodeFn, io: StaticIO) -> None:
    logits = decode(**io.inputs)
    io.next_tokens.copy_(torch.argmax(logits, dim=-1))


def capture_decode_graph(decode: DecodeFn, io: StaticIO, warmup_iters: int = 3) -> torch.cuda.CUDAGraph:
    """Warm up on a side stream (cuBLAS workspaces, autotuning) and capture."""
    warmup = torch.cuda.Stream()
    warmup.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(warmup):
        for _ in range(warmup_iters):
            _run_once(decode, io)
    torch.cuda.current_stream().wait_stream(warmup)

    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        _run_once(decode, io)
    # Nothing may be in flight on any stream when the runner takes over.
    torch.cuda.synchronize()
    return graph
