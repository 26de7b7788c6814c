"""Minimal train step wiring the model chunks, bucket groups and the offloaded optimizer."""
from typing import Callable, Iterator, List

import torch

from .cpu_offload_optimizer import CPUOffloadDistributedOptimizer


def train_step(
    forward_step_func: Callable[[torch.nn.Module, dict], torch.Tensor],
    data_iterator: Iterator[dict],
    model_chunks: List[torch.nn.Module],
    optimizer: CPUOffloadDistributedOptimizer,
    num_microbatches: int,
) -> dict:
    optimizer.zero_grad()
    losses = []
    for _ in range(num_microbatches):
        batch = next(data_iterator)
        for model in model_chunks:
            loss = forward_step_func(model, batch) / num_microbatches
            loss.backward()
            losses.append(loss.detach())
    grad_norm = optimizer.step()
    return {"lm loss": torch.stack(losses).sum(), "grad norm": grad_norm}
