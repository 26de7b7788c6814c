from dataclasses import dataclass
from typing import List, Optional

import torch

from .llm_request import LlmRequest


@dataclass(kw_only=True)
class SampleStateTensors:
    new_tokens: torch.Tensor


@dataclass(kw_only=True)
class SampleStateTensorsHost:
    new_tokens: torch.Tensor
    log_probs: Optional[torch.Tensor] = None


@dataclass(kw_only=True)
class SampleState:
    requests: List[LlmRequest]
    device: SampleStateTensors
    host: SampleStateTensorsHost
    sampler_event: Optional[torch.cuda.Event] = None
