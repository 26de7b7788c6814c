"""Shared pieces of the GPU tests: caches, the sleep-gated writer, host checks, and backends
that differ from the shipped one only by their constructor arguments."""

from __future__ import annotations

import threading
from typing import Any

import torch

from kvguard.runtime import CopyGuard, CopyRequest, GuardPolicy, OrderedCopyBackend

SLEEP_CYCLES = 20_000_000  # torch.cuda._sleep: about 20 ms on an H200, far longer than a launch


def low_priority_stream() -> torch.cuda.Stream:
    low, _ = torch.cuda.Stream.priority_range()
    return torch.cuda.Stream(priority=low)


def make_caches(
    gpu_blocks: int, cpu_blocks: int, block_elems: int = 1024, layers: tuple[str, ...] = ("k", "v")
) -> tuple[dict[str, torch.Tensor], dict[str, torch.Tensor]]:
    gpu = {name: torch.zeros(gpu_blocks, block_elems, dtype=torch.int32, device="cuda") for name in layers}
    cpu = {name: torch.full((cpu_blocks, block_elems), -1, dtype=torch.int32).pin_memory() for name in layers}
    return gpu, cpu


def write_blocks(gpu: dict[str, torch.Tensor], blocks: list[int], value: int, sleep: int) -> None:
    """The sleep-gated writer: on the current stream, sleep, then overwrite the blocks."""
    # Built before the sleep: torch.tensor(..., device="cuda") waits for the current stream.
    index = torch.tensor(blocks, device="cuda")
    torch.cuda._sleep(sleep)
    for tensor in gpu.values():
        tensor.index_fill_(0, index, value)


def host_holds(cpu: dict[str, torch.Tensor], blocks: list[int], value: int) -> bool:
    return all(bool((tensor[blocks] == value).all()) for tensor in cpu.values())


def no_barrier(guard: CopyGuard, transfer_stream: torch.cuda.Stream, request: CopyRequest) -> None:
    """The stock bug: the copy thread issues the copy without waiting on the compute stream."""


def unordered_backend(policy: GuardPolicy) -> OrderedCopyBackend:
    return OrderedCopyBackend(policy, barrier=no_barrier)


class GatedBackend(OrderedCopyBackend):
    """The copy thread takes requests only once `gate` is set, so that those launched before are
    taken as one group; `groups` holds the event indices of each group taken."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.gate = threading.Event()
        self.groups: list[list[int]] = []
        super().__init__(*args, start_gate=self.gate, on_group=self._record_group, **kwargs)

    def _record_group(self, requests: list[CopyRequest]) -> None:
        self.groups.append([request.event_idx for request in requests])
