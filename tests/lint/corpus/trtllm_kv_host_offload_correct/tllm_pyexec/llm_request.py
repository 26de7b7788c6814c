from __future__ import annotations

import dataclasses
import enum
from typing import Optional


class LlmRequestState(enum.Enum):
    CONTEXT_INIT = 0
    GENERATION_IN_PROGRESS = 1
    GENERATION_PAUSED = 2
    GENERATION_COMPLETE = 3


@dataclasses.dataclass
class LlmRequest:
    request_id: int
    prompt_len: int
    max_new_tokens: int
    end_id: int
    state: LlmRequestState = LlmRequestState.CONTEXT_INIT
    py_seq_slot: Optional[int] = None
    tokens: list[int] = dataclasses.field(default_factory=list)
    block_ids: list[int] = dataclasses.field(default_factory=list)
    host_block_ids: list[int] = dataclasses.field(default_factory=list)

    @property
    def is_finished(self) -> bool:
        return self.state == LlmRequestState.GENERATION_COMPLETE


@dataclasses.dataclass
class ScheduledRequests:
    context_requests: list[LlmRequest]
    generation_requests: list[LlmRequest]
    paused_requests: list[LlmRequest]
    resumed_requests: list[LlmRequest]

    @property
    def all_requests(self) -> list[LlmRequest]:
        return self.context_requests + self.generation_requests
