from dataclasses import dataclass, field
from typing import List, Optional

import torch

from .llm_request import LlmRequest, LlmRequestState


@dataclass
class ScheduledRequests:
    context_requests: List[LlmRequest] = field(default_factory=list)
    generation_requests: List[LlmRequest] = field(default_factory=list)

    @property
    def all_requests(self) -> List[LlmRequest]:
        return self.context_requests + self.generation_requests


@dataclass(kw_only=True)
class SampleStateTensors:
    new_tokens: torch.Tensor
    log_probs: Optional[torch.Tensor] = None


@dataclass(kw_only=True)
class SampleState:
    scheduled_requests: ScheduledRequests
    device: SampleStateTensors
    host: SampleStateTensors
    sampler_event: Optional[torch.cuda.Event] = None


def add_token(request: LlmRequest, new_tokens: torch.Tensor) -> int:
    seq_slot = request.py_seq_slot
    assert seq_slot is not None
    # expect: KVG003
    new_token = int(new_tokens[seq_slot])
    request.add_new_token(new_token)
    return new_token


class TorchSampler:
    def __init__(self, max_num_sequences: int, device: str = "cuda"):
        self.max_num_sequences = max_num_sequences
        self.new_tokens = torch.zeros((max_num_sequences,), dtype=torch.int32, device=device)
        self.log_probs = torch.zeros((max_num_sequences,), dtype=torch.float32, device=device)

    def _handle_stop_criteria(self, request: LlmRequest, new_token: int) -> bool:
        if request.end_id is not None and new_token == request.end_id:
            request.finish()
            return True
        if request.get_num_generated() >= request.max_new_tokens:
            request.finish()
            return True
        return False

    def handle_logprobs(self, request: LlmRequest, state: SampleState) -> None:
        if request.return_log_probs and state.host.log_probs is not None:
            # expect: KVG003
            request.py_log_probs.append(state.host.log_probs[request.py_seq_slot].item())

    def sample_async(self, scheduled_requests: ScheduledRequests, logits: torch.Tensor) -> SampleState:
        requests = scheduled_requests.all_requests
        seq_slots = torch.tensor([r.py_seq_slot for r in requests], dtype=torch.int64, pin_memory=True)
        seq_slots = seq_slots.to(self.new_tokens.device, non_blocking=True)
        log_softmax = torch.log_softmax(logits.float(), dim=-1)
        next_tokens = torch.argmax(logits, dim=-1)
        self.new_tokens[seq_slots] = next_tokens.to(torch.int32)
        self.log_probs[seq_slots] = log_softmax.gather(-1, next_tokens.unsqueeze(-1)).squeeze(-1)

        new_tokens_host = self.new_tokens.to("cpu", non_blocking=True)
        log_probs_host = self.log_probs.to("cpu", non_blocking=True)
        sampler_event = torch.cuda.Event()
        sampler_event.record()
        return SampleState(
            scheduled_requests=scheduled_requests,
            device=SampleStateTensors(new_tokens=self.new_tokens, log_probs=self.log_probs),
            host=SampleStateTensors(new_tokens=new_tokens_host, log_probs=log_probs_host),
            sampler_event=sampler_event,
        )

    def update_requests(self, state: SampleState) -> None:
        new_tokens = state.host.new_tokens
        for req in state.scheduled_requests.context_requests:
            if req.state == LlmRequestState.GENERATION_COMPLETE or req.context_remaining_length != 0:
                continue
            new_token = add_token(req, new_tokens)
            self._handle_stop_criteria(req, new_token)
            self.handle_logprobs(req, state)
            req.py_decoding_iter += 1

        if state.sampler_event is not None:
            state.sampler_event.synchronize()

        for req in state.scheduled_requests.generation_requests:
            if req.state == LlmRequestState.GENERATION_COMPLETE:
                continue
            new_token = add_token(req, new_tokens)
            self._handle_stop_criteria(req, new_token)
            self.handle_logprobs(req, state)
            req.py_decoding_iter += 1
