from dataclasses import dataclass, field
from enum import Enum


class LlmRequestState(Enum):
    CONTEXT_INIT = 0
    GENERATION_IN_PROGRESS = 1
    GENERATION_COMPLETE = 2


@dataclass
class LlmRequest:
    request_id: int
    max_new_tokens: int
    end_id: int
    seq_slot: int
    tokens: list[int] = field(default_factory=list)
    state: LlmRequestState = LlmRequestState.CONTEXT_INIT

    def add_new_token(self, token: int) -> None:
        self.tokens.append(token)
        if token == self.end_id or len(self.tokens) >= self.max_new_tokens:
            self.state = LlmRequestState.GENERATION_COMPLETE
        else:
            self.state = LlmRequestState.GENERATION_IN_PROGRESS
