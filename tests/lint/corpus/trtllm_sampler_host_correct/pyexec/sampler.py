from dataclasses import dataclass
from typing import Optional

import torch

from .llm_request import LlmRequest, LlmRequestState


@dataclass(kw_only=True)
class SampleState:
    scheduled_requests: list[LlmRequest]
    new_tokens_device: torch.Tensor
    new_tokens_host: torch.Tensor
    sampler_event: Optional[torch.cuda.Event] = None


class TorchSampler:
    def __init__(self, max_num_sequences: int) -> None:
        self.max_num_sequences = max_num_sequences

    def sample_async(self, requests: list[LlmRequest], logits: torch.Tensor) -> SampleState:
        new_tokens_device = torch.argmax(logits, dim=-1).to(torch.int32)
        new_tokens_host = new_tokens_device.to("cpu", non_blocking=True)
        sampler_event = torch.cuda.Event()
        sampler_event.record()
        return SampleState(scheduled_requests=requests,
                           new_tokens_device=new_tokens_device,
                           new_tokens_host=new_tokens_host,
                           sampler_event=sampler_event)

    def update_requests(self, state: SampleState) -> None:
        new_tokens = state.new_tokens_host.tolist()
        for idx, req in enumerate(state.scheduled_requests):
            if req.state == LlmRequestState.GENERATION_COMPLETE:
                continue
            req.add_new_token(new_tokens[idx])
