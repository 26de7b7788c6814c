"""Host-side request bookkeeping for dynamic batching."""
import time
from dataclasses import dataclass, field
from enum import Enum, auto
from typing import Dict, List

import torch


class RequestStatus(Enum):
    WAITING_IN_QUEUE = auto()
    ACTIVE_AND_GENERATING_TOKENS = auto()
    COMPLETED = auto()


@dataclass
class InferenceRequest:
    request_id: int
    prompt_tokens: List[int]
    num_tokens_to_generate: int
    status: RequestStatus = RequestStatus.WAITING_IN_QUEUE
    generated_tokens: List[int] = field(default_factory=list)
    arrival_time: float = field(default_factory=time.monotonic)
    finish_time: float = 0.0


class RequestBook:

    def __init__(self):
        self.requests: Dict[int, InferenceRequest] = {}
        self.finished: List[InferenceRequest] = []

    def admit(self, request: InferenceRequest) -> None:
        request.status = RequestStatus.ACTIVE_AND_GENERATING_TOKENS
        self.requests[request.request_id] = request

    def apply_step(self, host_metadata: torch.Tensor) -> List[int]:
        """Consume one step of mirrored metadata, one row per active request."""
        rows = host_metadata.tolist()
        retired = []
        now = time.monotonic()
        for rid, out_len, token, done in rows:
            request = self.requests[rid]
            request.generated_tokens.append(token)
            assert len(request.generated_tokens) == out_len
            if done:
                request.status = RequestStatus.COMPLETED
                request.finish_time = now
                self.finished.append(self.requests.pop(rid))
                retired.append(rid)
        return retired
