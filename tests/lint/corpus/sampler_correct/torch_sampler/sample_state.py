from dataclasses import dataclass, field
from typing import List, Optional

import torch


@dataclass(kw_only=True)
class SampleStateTensors:
    new_tokens: torch.Tensor
    log_probs: Optional[torch.Tensor] = None


@dataclass(kw_only=True)
class SampleState:
    scheduled_requests: object
    device: Optional[SampleStateTensors] = None
    host: Optional[SampleStateTensors] = None
    sampler_event: Optional[torch.cuda.Event] = None
    finished_ids: List[int] = field(default_factory=list)
