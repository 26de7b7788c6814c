from dataclasses import dataclass, field
from typing import NamedTuple, Optional

import torch


class LogprobsLists(NamedTuple):
    logprob_token_ids: list
    logprobs: list
    sampled_token_ranks: list


class LogprobsTensors(NamedTuple):
    logprob_token_ids: torch.Tensor
    logprobs: torch.Tensor
    selected_token_ranks: torch.Tensor

    def to_cpu_nonblocking(self) -> "LogprobsTensors":
        return LogprobsTensors(
            self.logprob_token_ids.to("cpu", non_blocking=True),
            self.logprobs.to("cpu", non_blocking=True),
            self.selected_token_ranks.to("cpu", non_blocking=True),
        )


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
