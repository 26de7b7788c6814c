import enum
from typing import List, Optional


class LlmRequestState(enum.Enum):
    CONTEXT_INIT = enum.auto()
    GENERATION_IN_PROGRESS = enum.auto()
    GENERATION_COMPLETE = enum.auto()


class LlmRequest:
    def __init__(self, request_id: int, prompt_tokens: List[int], max_new_tokens: int,
                 end_id: Optional[int] = None, return_log_probs: bool = False):
        self.py_request_id = request_id
        self.py_seq_slot: Optional[int] = None
        self.tokens: List[int] = list(prompt_tokens)
        self.prompt_len = len(prompt_tokens)
        self.max_new_tokens = max_new_tokens
        self.py_end_id = end_id
        self.py_return_log_probs = return_log_probs
        self.py_log_probs: List[float] = []
        self.state = LlmRequestState.CONTEXT_INIT

    @property
    def num_generated(self) -> int:
        return len(self.tokens) - self.prompt_len

    def add_new_token(self, token: int) -> None:
        self.tokens.append(token)
        self.state = LlmRequestState.GENERATION_IN_PROGRESS

    def is_finished_by(self, token: int) -> bool:
        return token == self.py_end_id or self.num_generated >= self.max_new_tokens
