# SPDX-License-Identifier: Apache-2.0
import logging
from dataclasses import dataclass, field
from typing import Iterable, Optional

from .constants import DEFAULT_STEP_IDX
from .sampler import SampleState, TorchSampler

logger = logging.getLogger("tensorrt_llm")


@dataclass
class LlmRequest:
    request_id: int
    py_seq_slot: int
    tokens: list[int] = field(default_factory=list)
    py_draft_tokens: list[int] = field(default_factory=list)

    def add_new_token(self, token: int) -> None:
        self.tokens.append(token)


class PyExecutor:

    def __init__(self, model_engine, sampler: TorchSampler):
        self.model_engine = model_engine
        self.sampler = sampler
        self.previous_state: Optional[SampleState] = None

    def _executor_loop_overlap(self, batches: Iterable[list[LlmRequest]]) -> None:
        for scheduled in batches:
            outputs = self.model_engine.forward(scheduled)
            state = self.sampler.sample_async(scheduled, outputs)
            if self.previous_state is not None:
                self._update_requests(self.previous_state)
            self.previous_state = state
        if self.previous_state is not None:
            self._update_requests(self.previous_state)
            self.previous_state = None

    def _update_requests(self, state: SampleState) -> None:
        state.sampler_event.synchronize()
        tokens = state.host.new_tokens[DEFAULT_STEP_IDX, :, 0].tolist()
        drafts = None
        if state.host.next_draft_tokens is not None:
            drafts = state.host.next_draft_tokens.tolist()
        for req in state.scheduled_requests:
            req.add_new_token(tokens[req.py_seq_slot])
            if drafts is not None:
                req.py_draft_tokens = drafts[req.py_seq_slot]
        logger.debug("updated %d requests", len(state.scheduled_requests))
