import time
from dataclasses import dataclass, field
from typing import Dict

import torch


@dataclass
class PendingSnapshot:
    key: str
    path: str
    seq_len: int
    tensors: Dict[str, torch.Tensor]
    copied: torch.cuda.Event = field(default_factory=torch.cuda.Event)
    queued_at: float = field(default_factory=time.monotonic)

    @property
    def nbytes(self):
        return sum(t.numel() * t.element_size() for t in self.tensors.values())
