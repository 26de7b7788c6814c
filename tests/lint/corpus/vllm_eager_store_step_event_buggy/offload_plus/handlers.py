"""Transfer specs (where the blocks of a transfer live) and the transfer handlers: one per
direction, each on a CUDA stream of its own, created on first use so that a spec that
never transfers in one direction never makes its stream."""

from abc import ABC, abstractmethod
from collections import deque
from dataclasses import dataclass
from functools import cached_property
from typing import ClassVar, Deque, List, NamedTuple

import numpy as np
import torch

from vllm import _custom_ops as ops


@dataclass(frozen=True)
class BlockIDsSpec:
    medium: ClassVar[str] = "?"
    block_ids: np.ndarray


@dataclass(frozen=True)
class GPUBlocks(BlockIDsSpec):
    medium: ClassVar[str] = "GPU"


@dataclass(frozen=True)
class CPUBlocks(BlockIDsSpec):
    medium: ClassVar[str] = "CPU"


class TransferSpec(NamedTuple):
    src: BlockIDsSpec
    dst: BlockIDsSpec

    @property
    def transfer_type(self):
        return (self.src.medium, self.dst.medium)


class InFlight(NamedTuple):
    job_id: int
    done: torch.cuda.Event


class TransferHandler(ABC):

    @abstractmethod
    def transfer_async(self, job_id: int, spec: TransferSpec, ready: torch.cuda.Event) -> None:
        """Queue the transfer behind ``ready`` (an event on the compute stream)."""

    @abstractmethod
    def get_finished(self) -> List[int]:
        ...


class _SwapHandler(TransferHandler):
    stream_priority = 0

    def __init__(self, src_caches: List[torch.Tensor], dst_caches: List[torch.Tensor]):
        self.src_caches = src_caches
        self.dst_caches = dst_caches
        self._in_flight: Deque[InFlight] = deque()

    @cached_property
    def stream(self) -> torch.cuda.Stream:
        return torch.cuda.Stream(priority=self.stream_priority)

    def transfer_async(self, job_id: int, spec: TransferSpec, ready: torch.cuda.Event) -> None:
        mapping = torch.from_numpy(np.stack([spec.src.block_ids, spec.dst.block_ids], axis=1))
        self.stream.wait_event(ready)
        with torch.cuda.stream(self.stream):
            for src, dst in zip(self.src_caches, self.dst_caches):
                # expect: KVG001
                ops.swap_blocks(src, dst, mapping)
            done = torch.cuda.Event()
            done.record(self.stream)
        self._in_flight.append(InFlight(job_id, done))

    def get_finished(self) -> List[int]:
        finished = []
        while self._in_flight and self._in_flight[0].done.query():
            finished.append(self._in_flight.popleft().job_id)
        return finished


class GpuToCpuHandler(_SwapHandler):
    stream_priority = 1  # low priority: stores must never delay the forward


class CpuToGpuHandler(_SwapHandler):
    stream_priority = -1  # loads gate the requests waiting for them
