from dataclasses import dataclass, field
from enum import Enum
from typing import List, Optional


class LlmRequestState(Enum):
    CONTEXT_INIT = 0
    GENERATION_IN_PROGRESS = 1
    GENERATION_COMPLETE = 2


@dataclass
class LlmRequest:
    py_request_id: int
    py_batch_idx: int
    py_end_id: int
    py_max_new_tokens: int
    py_return_log_probs: bool = False
    state: LlmRequestState = LlmRequestState.GENERATION_IN_PROGRESS
    py_tokens: List[int] = field(default_factory=list)
    py_log_probs: List[float] = field(default_factory=list)
    py_decoding_iter: int = 0
    py_result: Optional[dict] = None

    def add_new_token(self, token: int) -> None:
        self.py_tokens.append(token)
        self.py_decoding_iter += 1
        if token == self.py_end_id or self.py_decoding_iter >= self.py_max_new_tokens:
            self.state = LlmRequestState.GENERATION_COMPLETE
