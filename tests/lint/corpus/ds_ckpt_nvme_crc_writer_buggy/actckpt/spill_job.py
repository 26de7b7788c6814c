from dataclasses import dataclass, field
from typing import Optional

import torch


@dataclass
class SpillJob:
    layer_id: int
    path: str
    staging: torch.Tensor
    copied: Optional[torch.cuda.Event] = None
    crc: int = 0
    meta: dict = field(default_factory=dict)
