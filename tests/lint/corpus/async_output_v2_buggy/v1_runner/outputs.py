from dataclasses import dataclass, field
from typing import NamedTuple, Optional

import torch


class LogprobsLists(NamedTuple):
    logprob_token_ids: list[list[int]]
    logprobs: list[list[float]]
    sampled_token_ranks: list[int]


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

    def tolists(self) -> LogprobsLists:
        return LogprobsLists(
            self.logprob_token_ids.tolist(),
            self.logprobs.tolist(),
            self.selected_token_ranks.tolist(),
        )


@dataclass
class SamplerOutput:
    sampled_token_ids: torch.Tensor
    logprobs_tensors: Optional[LogprobsTensors]


@dataclass
class ModelRunnerOutput:
    req_ids: list[str]
    req_id_to_index: dict[str, int]
    sampled_token_ids: list[list[int]] = field(default_factory=list)
    logprobs: Optional[LogprobsLists] = None


class AsyncModelRunnerOutput:
    def get_output(self) -> ModelRunnerOutput:
        raise NotImplementedError
