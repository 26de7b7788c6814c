from __future__ import annotations

from dataclasses import dataclass

import torch


@dataclass
class StagedCheckpoint:
    step: int
    path: str
    tensors: dict[str, torch.Tensor]
