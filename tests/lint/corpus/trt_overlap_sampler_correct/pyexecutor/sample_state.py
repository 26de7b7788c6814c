from dataclasses import dataclass, field
from typing import Optional

import torch


@dataclass
class LlmRequest:
    request_id: int
    max_new_tokens: int
    end_id: int
    output_tokens: list[int] = field(default_factory=list)
    is_finished: bool = False

    def add_new_token(self, token: int) -> None:
        self.output_tokens.append(token)
        if token == self.end_id or len(self.output_tokens) >= self.max_new_tokens:
            self.is_finished = True


@dataclass
class ScheduledRequests:
    generation_requests: list[LlmRequest] = field(default_factory=list)

    @property
    def batch_size(self) -> int:
        return len(self.generation_requests)


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
