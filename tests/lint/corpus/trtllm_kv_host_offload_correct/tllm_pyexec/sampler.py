from __future__ import annotations

import dataclasses
from typing import Optional

import torch

from .llm_request import LlmRequest, LlmRequestState, ScheduledRequests


@dataclasses.dataclass
class SampleStateTensors:
    new_tokens: torch.Tensor


@dataclasses.dataclass
class SampleState:
    scheduled_requests: ScheduledRequests
    device: Optional[SampleStateTensors] = None
    host: Optional[SampleStateTensors] = None
    sampler_event: Optional[torch.cuda.Event] = None


class TorchSampler:
    def sample_async(self, scheduled: ScheduledRequests, logits: torch.Tensor) -> SampleState:
        new_tokens = torch.argmax(logits, dim=-1).to(torch.int32)
        new_tokens_host = new_tokens.to("cpu", non_blocking=True)
        sampler_event = torch.cuda.Event()
        sampler_event.record()
        return SampleState(scheduled_requests=scheduled,
                           device=SampleStateTensors(new_tokens),
                           host=SampleStateTensors(new_tokens_host),
                           sampler_event=sampler_event)

    def update_requests(self, state: SampleState) -> None:
        if state.sampler_event:
            state.sampler_event.synchronize()
        new_tokens = state.host.new_tokens.tolist()
        for idx, req in enumerate(state.scheduled_requests.all_requests):
            if req.is_finished:
                continue
            token = new_tokens[idx]
            req.tokens.append(token)
            if token == req.end_id or len(req.tokens) >= req.max_new_tokens:
                req.state = LlmRequestState.GENERATION_COMPLETE
            else:
                req.state = LlmRequestState.GENERATION_IN_PROGRESS
