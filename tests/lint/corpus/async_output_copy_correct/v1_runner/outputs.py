from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple, Optional

import torch


class LogprobsTensors(NamedTuple):
    # [num_reqs, max_num_logprobs + 1]
    logprob_token_ids: torch.Tensor
    logprobs: torch.Tensor
    # [num_reqs]
    selected_token_ranks: torch.Tensor

    def to_cpu_nonblocking(self) -> "LogprobsTensors":
        return LogprobsTensors(*(t.to("cpu", non_blocking=True) for t in self))

    def tolists(self) -> "LogprobsLists":
        return LogprobsLists(
            self.logprob_token_ids.tolist(),
            self.logprobs.tolist(),
            self.selected_token_ranks.tolist(),
        )


class LogprobsLists(NamedTuple):
    logprob_token_ids: list[list[int]]
    logprobs: list[list[float]]
    sampled_token_ranks: list[int]


@dataclass
class SamplerOutput:
    sampled_token_ids: torch.Tensor
    logprobs_tensors: Optional[LogprobsTensors] = None


@dataclass
class ModelRunnerOutput:
    req_ids: list[str]
    req_id_to_index: dict[str, int]
    sampled_token_ids: list[list[int]] = field(default_factory=list)
    logprobs: Optional[LogprobsLists] = None
