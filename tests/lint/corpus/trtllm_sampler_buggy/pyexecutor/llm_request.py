from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class LlmRequest:
    request_id: int
    py_seq_slot: int
    max_new_tokens: int
    tokens: list[int] = field(default_factory=list)
    is_finished: bool = False

    @property
    def num_tokens(self) -> int:
        return len(self.tokens)

    def add_new_token(self, token: int) -> None:
        self.tokens.append(token)
        if len(self.tokens) >= self.max_new_tokens:
            self.is_finished = True

    def mark_finished(self) -> None:
        self.is_finished = True


@dataclass
class ScheduledRequests:
    context_requests: list[LlmRequest] = field(default_factory=list)
    generation_requests: list[LlmRequest] = field(default_factory=list)

    def all_requests(self) -> list[LlmRequest]:
        return self.context_requests + self.generation_requests

    @property
    def batch_size(self) -> int:
        return len(self.context_requests) + len(self.generation_requests)
