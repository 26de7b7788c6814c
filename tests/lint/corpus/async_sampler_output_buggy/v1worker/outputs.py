# SPDX-License-Identifier: Apache-2.0
from dataclasses import dataclass, field
from typing import NamedTuple, Optional

import torch


class LogprobsLists(NamedTuple):
    # [num_reqs, max_num_logprobs + 1]
    logprob_token_ids: list[list[int]]
    # [num_reqs, max_num_logprobs + 1]
    logprobs: list[list[float]]
    # [num_reqs]
    sampled_token_ranks: list[int]


class LogprobsTensors(NamedTuple):
    logprob_token_ids: torch.Tensor
    logprobs: torch.Tensor
    selected_token_ranks: torch.Tensor

    def tolists(self) -> LogprobsLists:
        return LogprobsLists(
            self.logprob_token_ids.tolist(),
            self.logprobs.tolist(),
            self.selected_token_ranks.tolist(),
        )

    def to_cpu_nonblocking(self) -> "LogprobsTensors":
        # expect: KVG001
        return LogprobsTensors(*(t.to("cpu", non_blocking=True) for t in self))


@dataclass
class SamplerOutput:
    # [num_reqs, 1]
    sampled_token_ids: torch.Tensor
    logprobs_tensors: Optional[LogprobsTensors]


@dataclass
class ModelRunnerOutput:
    req_ids: list[str]
    req_id_to_index: dict[str, int]
    sampled_token_ids: list[list[int]] = field(default_factory=list)
    logprobs: Optional[LogprobsLists] = None
