"""The records that travel between the scheduler and the model worker."""

from dataclasses import dataclass, field
from typing import List, Optional

import torch


@dataclass
class Req:
    rid: str
    output_ids: List[int] = field(default_factory=list)
    output_token_logprobs: List[float] = field(default_factory=list)
    return_logprob: bool = False


@dataclass
class ModelWorkerBatch:
    bid: int
    input_ids: torch.Tensor
    seq_lens: List[int]
    return_logprob: bool = False

    @property
    def batch_size(self) -> int:
        return len(self.seq_lens)


@dataclass
class LogitsProcessorOutput:
    next_token_logits: torch.Tensor
    # device tensor after the forward; a host tensor (then a list) once copied back
    next_token_logprobs: Optional[torch.Tensor] = None
