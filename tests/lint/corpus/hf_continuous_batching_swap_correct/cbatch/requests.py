from dataclasses import dataclass, field
from enum import Enum
from typing import List


class RequestStatus(Enum):
    PENDING = "pending"
    PREFILLING = "prefilling"
    DECODING = "decoding"
    SWAPPED = "swapped"
    FINISHED = "finished"


@dataclass
class RequestState:
    request_id: str
    prompt_ids: List[int]
    max_new_tokens: int
    eos_token_id: int
    status: RequestStatus = RequestStatus.PENDING
    generated: List[int] = field(default_factory=list)
    block_table: List[int] = field(default_factory=list)
    host_blocks: List[int] = field(default_factory=list)

    @property
    def length(self):
        return len(self.prompt_ids) + len(self.generated)

    @property
    def last_token(self):
        return self.generated[-1] if self.generated else self.prompt_ids[-1]

    def is_done(self):
        return len(self.generated) >= self.max_new_tokens or (
            self.generated and self.generated[-1] == self.eos_token_id
        )
