from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch

from .cuda_streams import sampler_d2h_stream
from .host_copy import HostStagingBuffers, stage_to_host
from .llm_request import LlmRequest, ScheduledRequests


@dataclass(kw_only=True)
class SampleStateTensors:
    new_tokens: torch.Tensor
    new_tokens_lens: torch.Tensor


@dataclass(kw_only=True)
class SampleState:
    scheduled_requests: ScheduledRequests
    device: SampleStateTensors
    host: SampleStateTensors
    sampler_event: torch.cuda.Event


class TorchSampler:

    @dataclass(frozen=True, kw_only=True)
    class Args:
        max_seq_len: int
        max_draft_len: int
        max_num_sequences: int

    def __init__(self, args: Args):
        self.max_seq_len = args.max_seq_len
        self.max_tokens = args.max_draft_len + 1
        self.max_num_sequences = args.max_num_sequences
        # Two host slots: the overlap loop reads batch N-1 while N is copied.
        self._staging = [
            HostStagingBuffers.allocate(self.max_tokens,
                                        self.max_num_sequences)
            for _ in range(2)
        ]
        self._slot = 0
        self._d2h_stream = sampler_d2h_stream()

    def sample_async(self, scheduled_requests: ScheduledRequests,
                     model_outputs: dict[str, Any]) -> SampleState:
        requests = scheduled_requests.all_requests()
        logits = model_outputs["logits"]
        new_tokens = torch.argmax(logits, dim=-1).to(torch.int32).view(
            1, len(requests))
        new_tokens_lens = torch.ones((len(requests), ),
                                     dtype=torch.int32,
                                     device=logits.device)

        staging = self._staging[self._slot]
        self._slot ^= 1
        host_views = staging.views(len(requests))
        self._d2h_stream.wait_stream(torch.cuda.current_stream())
        sampler_event = stage_to_host(
            {
                "new_tokens": new_tokens,
                "new_tokens_lens": new_tokens_lens
            }, host_views, self._d2h_stream)
        return SampleState(
            scheduled_requests=scheduled_requests,
            device=SampleStateTensors(new_tokens=new_tokens,
                                      new_tokens_lens=new_tokens_lens),
            host=SampleStateTensors(**host_views),
            sampler_event=sampler_event,
        )

    def update_requests(self, state: SampleState) -> None:
        state.sampler_event.synchronize()
        new_tokens = state.host.new_tokens.tolist()
        new_tokens_lens = state.host.new_tokens_lens.tolist()
        for idx, request in enumerate(
                state.scheduled_requests.all_requests()):
            self._add_tokens(request, new_tokens, new_tokens_lens[idx], idx)

    def _add_tokens(self, request: LlmRequest, new_tokens: list[list[int]],
                    num_tokens: int, idx: int) -> None:
        for step in range(num_tokens):
            request.add_new_token(new_tokens[step][idx])
        if request.num_tokens >= self.max_seq_len:
            request.mark_finished()
