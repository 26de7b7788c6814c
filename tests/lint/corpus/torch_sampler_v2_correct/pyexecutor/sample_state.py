from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import torch

from pyexecutor.llm_request import ScheduledRequests


@dataclass(kw_only=True)
class SampleStateTensors:
    new_tokens: torch.Tensor
    log_probs: Optional[torch.Tensor] = None


@dataclass(kw_only=True)
class SampleState:
    scheduled_requests: ScheduledRequests
    device: Optional[SampleStateTensors] = None
    host: Optional[SampleStateTensors] = None
    sampler_event: Optional[torch.cuda.Event] = None
