import enum
from typing import List, Optional


class LlmRequestState(enum.Enum):
    CONTEXT_INIT = enum.auto()
    GENERATION_IN_PROGRESS = enum.auto()
    GENERATION_COMPLETE = enum.auto()


class LlmRequest:
    def __init__(
        self,
        request_id: int,
        prompt_tokens: List[int],
        max_new_tokens: int,
        end_id: Optional[int] = None,
        return_log_probs: bool = False,
    ):
        self.request_id = request_id
        self.tokens: List[int] = list(prompt_tokens)
        self.prompt_len = len(prompt_tokens)
        self.max_new_tokens = max_new_tokens
        self.end_id = end_id
        self.return_log_probs = return_log_probs
        self.state = LlmRequestState.CONTEXT_INIT
        self.context_remaining_length = len(prompt_tokens)
        self.py_seq_slot: Optional[int] = None
        self.py_decoding_iter = 0
        self.py_log_probs: List[float] = []

    @property
    def is_context_init_state(self) -> bool:
        return self.state == LlmRequestState.CONTEXT_INIT

    def add_new_token(self, token: int) -> None:
        self.tokens.append(token)

    def get_num_generated(self) -> int:
        return len(self.tokens) - self.prompt_len

    def finish(self) -> None:
        self.state = LlmRequestState.GENERATION_COMPLETE
