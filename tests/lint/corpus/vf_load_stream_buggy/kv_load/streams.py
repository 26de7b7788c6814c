"""Stream helpers shared by the load and store paths."""

from __future__ import annotations

import torch

from kv_load import config


def make_stream(priority: int) -> torch.cuda.Stream:
    return torch.cuda.Stream(priority=priority)


def fence(consumer: torch.cuda.Stream, producer: torch.cuda.Stream | None = None) -> None:
    """Order all future work on `consumer` after everything already queued
    on `producer` (the caller's current stream by default)."""
    if producer is None:
        producer = torch.cuda.current_stream()
    consumer.wait_stream(producer)


def host_index(ids: list[int]) -> torch.Tensor:
    t = torch.tensor(ids, dtype=torch.int64)
    return t.pin_memory() if config.PIN_INDEX_TENSORS else t
