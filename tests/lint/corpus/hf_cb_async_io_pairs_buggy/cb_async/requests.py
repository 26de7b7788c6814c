from dataclasses import dataclass, field
from enum import Enum
from typing import List


class RequestStatus(Enum):
    PENDING = 0
    DECODING = 1
    FINISHED = 2


@dataclass
class RequestState:
    request_id: str
    prompt_ids: List[int]
    max_new_tokens: int
    generated_tokens: List[int] = field(default_factory=list)
    position_offset: int = 0
    status: RequestStatus = RequestStatus.PENDING

    @property
    def tokens_to_process(self) -> List[int]:
        if self.status == RequestStatus.PENDING:
            return self.prompt_ids
        return self.generated_tokens[-1:]

    def append_token(self, token: int, eos_token_id: int) -> None:
        self.generated_tokens.append(token)
        if token == eos_token_id or len(self.generated_tokens) >= self.max_new_tokens:
            self.status = RequestStatus.FINISHED
        else:
            self.status = RequestStatus.DECODING
