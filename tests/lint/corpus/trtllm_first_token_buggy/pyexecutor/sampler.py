from dataclasses import dataclass
from typing import Optional

import torch

from pyexecutor.llm_request import LlmRequest, LlmRequestState, ScheduledRequests


@dataclass(kw_only=True)
class SampleStateTensors:
    new_tokens: torch.Tensor
    log_probs: Optional[torch.Tensor] = None


@dataclass(kw_only=True)
class SampleState:
    scheduled_requests: ScheduledRequests
    device: SampleStateTensors
    host: SampleStateTensors
    sampler_event: torch.cuda.Event


class TorchSampler:
    def __init__(self, max_num_sequences: int, max_beam_width: int = 1, return_log_probs: bool = False):
        self.return_log_probs = return_log_probs
        self.new_tokens = torch.zeros(
            (max_num_sequences, max_beam_width), dtype=torch.int32, device="cuda"
        )

    def sample_async(self, scheduled_requests: ScheduledRequests, model_outputs: dict) -> SampleState:
        requests = scheduled_requests.all_requests()
        seq_slots = torch.tensor(
            [r.py_seq_slot for r in requests], dtype=torch.int64, pin_memory=True
        ).to("cuda", non_blocking=True)
        logits = model_outputs["logits"]
        next_tokens = torch.argmax(logits, dim=-1)
        self.new_tokens[seq_slots, 0] = next_tokens.to(torch.int32)

        log_probs_device = None
        if self.return_log_probs:
            log_probs_device = torch.log_softmax(logits.float(), dim=-1).gather(
                -1, next_tokens.unsqueeze(-1)
            )
        host = SampleStateTensors(
            new_tokens=self.new_tokens.to("cpu", non_blocking=True),
            log_probs=None if log_probs_device is None else log_probs_device.to("cpu", non_blocking=True),
        )
        sampler_event = torch.cuda.Event()
        sampler_event.record()
        return SampleState(
            scheduled_requests=scheduled_requests,
            device=SampleStateTensors(new_tokens=self.new_tokens, log_probs=log_probs_device),
            host=host,
            sampler_event=sampler_event,
        )

    def _handle_stop_criteria(self, req: LlmRequest, token: int) -> None:
        if token == req.end_id or req.num_generated >= req.max_new_tokens:
            req.state = LlmRequestState.GENERATION_COMPLETE

    def update_requests(self, state: SampleState) -> None:
        state.sampler_event.synchronize()
        new_tokens = state.host.new_tokens.tolist()
        log_probs = state.host.log_probs
        for idx, req in enumerate(state.scheduled_requests.all_requests()):
            if req.context_remaining_length != 0:
                continue
            token = new_tokens[req.py_seq_slot][0]
            req.add_new_token(token, None if log_probs is None else float(log_probs[idx, 0]))
            if req.state is LlmRequestState.CONTEXT_INIT:
                req.state = LlmRequestState.GENERATION_IN_PROGRESS
            self._handle_stop_criteria(req, token)
