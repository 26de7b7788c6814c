from dataclasses import dataclass, field
from typing import Dict, List, Optional

import torch

from .llm_request import LlmRequest, LlmRequestState
from .sampling_utils import gather_token_log_probs, greedy_search_sampling_batch, top_k_sampling_batch


@dataclass
class ScheduledRequests:
    context_requests: List[LlmRequest] = field(default_factory=list)
    generation_requests: List[LlmRequest] = field(default_factory=list)

    def all_requests(self) -> List[LlmRequest]:
        return self.context_requests + self.generation_requests


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


class TorchSampler:

    @dataclass(frozen=True, kw_only=True)
    class Args:
        max_num_sequences: int
        top_k: int = 0
        overlap_scheduler: bool = True

    def __init__(self, args: Args):
        self.args = args
        self.new_tokens = torch.zeros(args.max_num_sequences, dtype=torch.int64, device="cuda")
        self.log_probs = torch.zeros(args.max_num_sequences, dtype=torch.float32, device="cuda")

    def _sample(self, logits: torch.Tensor):
        if self.args.top_k > 0:
            return top_k_sampling_batch(logits, self.args.top_k)
        return greedy_search_sampling_batch(logits)

    def sample_async(self, scheduled_requests: ScheduledRequests,
                     model_outputs: Dict[str, torch.Tensor]) -> SampleState:
        requests = scheduled_requests.all_requests()
        slots = torch.tensor([r.py_seq_slot for r in requests], dtype=torch.int64, pin_memory=True)
        slots = slots.to(self.new_tokens.device, non_blocking=True)

        tokens, log_probs = self._sample(model_outputs["logits"])
        self.new_tokens.index_copy_(0, slots, tokens)
        self.log_probs.index_copy_(0, slots, gather_token_log_probs(log_probs, tokens))

        device = SampleStateTensors(new_tokens=self.new_tokens, log_probs=self.log_probs)
        host = SampleStateTensors(
            new_tokens=self.new_tokens.to("cpu", non_blocking=True),
            log_probs=self.log_probs.to("cpu", non_blocking=True),
        )
        sampler_event = torch.cuda.Event()
        sampler_event.record()
        return SampleState(scheduled_requests=scheduled_requests, device=device, host=host,
                           sampler_event=sampler_event)

    def update_requests(self, state: SampleState) -> None:
        if state.sampler_event is not None:
            state.sampler_event.synchronize()
        requests = state.scheduled_requests.all_requests()
        new_tokens = state.host.new_tokens.tolist()
        log_probs = None
        if any(r.py_return_log_probs for r in requests):
            log_probs = state.host.log_probs.tolist()

        for req in requests:
            if req.state == LlmRequestState.GENERATION_COMPLETE:
                continue
            token = new_tokens[req.py_seq_slot]
            req.add_new_token(token)
            if log_probs is not None and req.py_return_log_probs:
                req.py_log_probs.append(log_probs[req.py_seq_slot])
            if req.is_finished_by(token):
                req.state = LlmRequestState.GENERATION_COMPLETE
