# SPDX-License-Identifier: Apache-2.0
from dataclasses import dataclass
from typing import Optional

import torch

from .constants import DEFAULT_STEP_IDX, INDEX_DTYPE, TOKEN_DTYPE
from .cuda_streams import get_host_copy_stream
from .host_copy import empty_pinned_like, stage_to_host


@dataclass(kw_only=True)
class SampleStateTensors:
    new_tokens: torch.Tensor
    next_draft_tokens: Optional[torch.Tensor] = None


@dataclass(kw_only=True)
class SampleState:
    scheduled_requests: list
    device: SampleStateTensors
    host: SampleStateTensors
    sampler_event: torch.cuda.Event


class TorchSampler:

    @dataclass(frozen=True, kw_only=True)
    class Args:
        max_num_sequences: int
        max_draft_len: int
        max_beam_width: int = 1

    def __init__(self, args: Args):
        self.max_tokens = args.max_draft_len + 1
        shape = (self.max_tokens, args.max_num_sequences, args.max_beam_width)
        draft = None
        if args.max_draft_len > 0:
            draft = torch.zeros(
                (args.max_num_sequences, args.max_draft_len), dtype=TOKEN_DTYPE, device="cuda"
            )
        self.store = SampleStateTensors(
            new_tokens=torch.zeros(shape, dtype=TOKEN_DTYPE, device="cuda"),
            next_draft_tokens=draft,
        )
        self._host_copy_stream = get_host_copy_stream()
        self._inflight_copy: Optional[torch.cuda.Event] = None

    def _write_draft_tokens(self, draft_logits: torch.Tensor, seq_slots: torch.Tensor) -> None:
        draft = torch.argmax(draft_logits, dim=-1).to(TOKEN_DTYPE)
        self.store.next_draft_tokens.index_copy_(0, seq_slots, draft)

    def sample_async(self, scheduled_requests: list, model_outputs: dict) -> SampleState:
        if self._inflight_copy is not None:
            torch.cuda.current_stream().wait_event(self._inflight_copy)

        seq_slots = torch.tensor(
            [r.py_seq_slot for r in scheduled_requests], dtype=INDEX_DTYPE, pin_memory=True
        ).to("cuda", non_blocking=True)
        next_tokens = torch.argmax(model_outputs["logits"], dim=-1).to(TOKEN_DTYPE)
        self.store.new_tokens[DEFAULT_STEP_IDX, :, 0].index_copy_(0, seq_slots, next_tokens)

        if self.store.next_draft_tokens is not None and "draft_logits" in model_outputs:
            self._write_draft_tokens(model_outputs["draft_logits"], seq_slots)
        ready = torch.cuda.Event()
        ready.record()

        host = SampleStateTensors(
            new_tokens=empty_pinned_like(self.store.new_tokens),
            next_draft_tokens=(
                empty_pinned_like(self.store.next_draft_tokens)
                if self.store.next_draft_tokens is not None
                else None
            ),
        )
        done = stage_to_host(self.store, host, ready, self._host_copy_stream)
        self._inflight_copy = done
        return SampleState(
            scheduled_requests=scheduled_requests,
            device=self.store,
            host=host,
            sampler_event=done,
        )
