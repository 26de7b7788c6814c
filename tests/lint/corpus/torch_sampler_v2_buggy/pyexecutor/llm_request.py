from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import List


class LlmRequestState(enum.Enum):
    CONTEXT_INIT = enum.auto()
    GENERATION_IN_PROGRESS = enum.auto()
    GENERATION_COMPLETE = enum.auto()


class LlmRequest:
    def __init__(self, request_id: int, prompt_len: int, max_new_tokens: int, end_id: int):
        self.py_request_id = request_id
        self.py_seq_slot: int = -1
        self.prompt_len = prompt_len
        self.max_new_tokens = max_new_tokens
        self.py_end_id = end_id
        self.context_chunk_size = prompt_len
        self.context_current_position = 0
        self.state = LlmRequestState.CONTEXT_INIT
        self.tokens: List[int] = []

    @property
    def is_last_context_chunk(self) -> bool:
        return self.context_current_position + self.context_chunk_size >= self.prompt_len

    def add_new_token(self, token: int) -> None:
        self.tokens.append(token)
        if token == self.py_end_id or len(self.tokens) >= self.max_new_tokens:
            self.state = LlmRequestState.GENERATION_COMPLETE
        else:
            self.state = LlmRequestState.GENERATION_IN_PROGRESS


@dataclass
class ScheduledRequests:
    context_requests: List[LlmRequest] = field(default_factory=list)
    generation_requests: List[LlmRequest] = field(default_factory=list)

    @property
    def all_requests(self) -> List[LlmRequest]:
        return self.context_requests + self.generation_requests

    @property
    def batch_size(self) -> int:
        return len(self.context_requests) + len(self.generation_requests)
