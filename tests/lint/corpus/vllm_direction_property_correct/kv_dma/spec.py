"""Transfer descriptions shared by the worker, the DMA thread and the copy helpers."""

import enum
from dataclasses import dataclass, field
from typing import List

import torch


class TransferDirection(enum.Enum):
    # (source medium, destination medium)
    GPU_TO_CPU = ("gpu", "cpu")
    CPU_TO_GPU = ("cpu", "gpu")

    @property
    def src_medium(self) -> str:
        return self.value[0]

    @property
    def reads_host(self) -> bool:
        """Whether the copy reads pinned host memory (which no CUDA stream writes)."""
        return self.value[0] == "cpu"


@dataclass
class TransferSpec:
    job_id: int
    direction: TransferDirection
    src_blocks: List[int]
    dst_blocks: List[int]
    ready: torch.cuda.Event  # recorded on the compute stream when the job was submitted
    done: torch.cuda.Event = field(default_factory=torch.cuda.Event)
