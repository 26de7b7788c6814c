"""What the connector hands the swap worker."""

import enum
from dataclasses import dataclass, field
from typing import List, Optional

import torch


class SwapKind(enum.Enum):
    OUT = "out"  # GPU -> CPU
    IN = "in"    # CPU -> GPU


@dataclass
class SwapRequest:
    kind: SwapKind
    req_id: str
    gpu_blocks: List[int]
    cpu_blocks: List[int]
    # recorded on the model runner's stream when the request is handed over
    ready: torch.cuda.Event = field(default_factory=torch.cuda.Event)
    done: Optional[torch.cuda.Event] = None
