import enum
from dataclasses import dataclass, field
from typing import List, Optional


class LlmRequestState(enum.Enum):
    CONTEXT_INIT = 1
    GENERATION_IN_PROGRESS = 2
    GENERATION_COMPLETE = 3


@dataclass
class LlmRequest:
    py_request_id: int
    py_seq_slot: int
    prompt_len: int
    max_new_tokens: int
    end_id: Optional[int] = None
    streaming: bool = False
    context_remaining_length: int = 0
    state: LlmRequestState = LlmRequestState.CONTEXT_INIT
    tokens: List[int] = field(default_factory=list)
    log_probs: List[float] = field(default_factory=list)

    def add_new_token(self, token: int, log_prob: Optional[float] = None) -> None:
        self.tokens.append(token)
        if log_prob is not None:
            self.log_probs.append(log_prob)

    @property
    def num_generated(self) -> int:
        return len(self.tokens)


@dataclass
class LlmResponse:
    request_id: int
    tokens: List[int]
    is_final: bool


@dataclass
class ScheduledRequests:
    context_requests: List[LlmRequest] = field(default_factory=list)
    generation_requests: List[LlmRequest] = field(default_factory=list)

    @property
    def batch_size(self) -> int:
        return len(self.context_requests) + len(self.generation_requests)

    def all_requests(self) -> List[LlmRequest]:
        return self.context_requests + self.generation_requests
