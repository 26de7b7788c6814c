from dataclasses import dataclass
from typing import Optional

import torch

from pyexecutor.llm_request import LlmRequestState, ScheduledRequests


@dataclass(kw_only=True)
class SampleStateTensors:
    new_tokens: torch.Tensor


@dataclass(kw_only=True)
class SampleState:
    scheduled_requests: ScheduledRequests
    device: Optional[SampleStateTensors] = None
    host: Optional[SampleStateTensors] = None
    sampler_event: Optional[torch.cuda.Event] = None


class TorchSampler:
    """Greedy sampler: tokens are produced on device, copied to a host tensor
    asynchronously, and consumed one iteration later (overlap scheduler)."""

    def __init__(self, max_num_sequences: int):
        self.max_num_sequences = max_num_sequences

    def sample_async(self, scheduled_requests: ScheduledRequests,
                     model_outputs: dict[str, torch.Tensor]) -> SampleState:
        logits = model_outputs["logits"]
        new_tokens = torch.argmax(logits, dim=-1).to(torch.int32)
        new_tokens_host = new_tokens.to(device="cpu", non_blocking=True)
        sampler_event = torch.cuda.Event()
        sampler_event.record()
        return SampleState(
            scheduled_requests=scheduled_requests,
            device=SampleStateTensors(new_tokens=new_tokens),
            host=SampleStateTensors(new_tokens=new_tokens_host),
            sampler_event=sampler_event,
        )

    def update_requests(self, state: SampleState) -> None:
        if state.sampler_event is not None:
            state.sampler_event.synchronize()
        new_tokens = state.host.new_tokens.tolist()
        for idx, request in enumerate(state.scheduled_requests.all_requests()):
            if request.state == LlmRequestState.GENERATION_COMPLETE:
                continue
            request.add_new_token(new_tokens[idx])
            if request.is_context_only_request:
                request.state = LlmRequestState.DISAGG_CONTEXT_TRANS_IN_PROGRESS
            else:
                request.state = LlmRequestState.GENERATION_IN_PROGRESS
