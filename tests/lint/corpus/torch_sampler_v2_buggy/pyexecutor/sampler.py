from __future__ import annotations

import logging
from dataclasses import dataclass

import torch

from pyexecutor.llm_request import LlmRequestState, ScheduledRequests
from pyexecutor.sample_state import SampleState, SampleStateTensors

logger = logging.getLogger(__name__)


class TorchSampler:
    @dataclass(frozen=True, kw_only=True)
    class Args:
        max_num_sequences: int
        vocab_size: int
        device: str = "cuda"

    def __init__(self, args: Args):
        self.max_num_sequences = args.max_num_sequences
        self.vocab_size = args.vocab_size
        self.new_tokens = torch.zeros(
            (args.max_num_sequences,), dtype=torch.int32, device=args.device
        )

    def sample_async(
        self, scheduled_requests: ScheduledRequests, model_outputs: dict[str, torch.Tensor]
    ) -> SampleState:
        logits = model_outputs["logits"]
        requests = scheduled_requests.all_requests
        slots = torch.tensor(
            [r.py_seq_slot for r in requests], dtype=torch.int64, pin_memory=True
        ).to(self.new_tokens.device, non_blocking=True)
        next_tokens = torch.argmax(logits[: len(requests)], dim=-1).to(torch.int32)
        self.new_tokens.index_copy_(0, slots, next_tokens)

        device = SampleStateTensors(new_tokens=self.new_tokens)
        host = SampleStateTensors(new_tokens=self.new_tokens.to("cpu", non_blocking=True))
        sampler_event = torch.cuda.Event()
        sampler_event.record()
        return SampleState(
            scheduled_requests=scheduled_requests,
            device=device,
            host=host,
            sampler_event=sampler_event,
        )

    def update_requests(self, state: SampleState) -> None:
        assert isinstance(state, SampleState)
        new_tokens = state.host.new_tokens

        for req in state.scheduled_requests.context_requests:
            if req.is_last_context_chunk:
                # expect: KVG003
                req.add_new_token(int(new_tokens[req.py_seq_slot]))
            req.context_current_position += req.context_chunk_size

        if state.sampler_event is not None:
            state.sampler_event.synchronize()
        new_tokens_list = new_tokens.tolist()
        for req in state.scheduled_requests.generation_requests:
            if req.state == LlmRequestState.GENERATION_COMPLETE:
                continue
            req.add_new_token(new_tokens_list[req.py_seq_slot])
