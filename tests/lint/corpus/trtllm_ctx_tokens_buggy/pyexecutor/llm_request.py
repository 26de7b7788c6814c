from dataclasses import dataclass, field
from enum import Enum


class LlmRequestState(Enum):
    CONTEXT_INIT = 0
    GENERATION_IN_PROGRESS = 1
    DISAGG_CONTEXT_TRANS_IN_PROGRESS = 2
    GENERATION_COMPLETE = 3


@dataclass
class LlmRequest:
    py_request_id: int
    prompt_len: int
    max_new_tokens: int
    is_context_only_request: bool = False
    state: LlmRequestState = LlmRequestState.CONTEXT_INIT
    py_seq_slot: int = -1
    tokens: list[int] = field(default_factory=list)

    def add_new_token(self, token: int) -> None:
        self.tokens.append(token)
        if len(self.tokens) >= self.max_new_tokens:
            self.state = LlmRequestState.GENERATION_COMPLETE


@dataclass
class ScheduledRequests:
    context_requests: list[LlmRequest] = field(default_factory=list)
    generation_requests: list[LlmRequest] = field(default_factory=list)

    def all_requests(self) -> list[LlmRequest]:
        return self.context_requests + self.generation_requests

    @property
    def context_only_requests(self) -> list[LlmRequest]:
        return [r for r in self.context_requests if r.is_context_only_request]
