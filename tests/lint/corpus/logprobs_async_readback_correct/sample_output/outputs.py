# SPDX-License-Identifier: Apache-2.0
from typing import NamedTuple

import torch


class LogprobsLists(NamedTuple):
    # [num_reqs, max_num_logprobs + 1]
    logprob_token_ids: list[list[int]]
    # [num_reqs, max_num_logprobs + 1]
    logprobs: list[list[float]]
    # [num_reqs]
    sampled_token_ranks: list[int]


class LogprobsTensors(NamedTuple):
    # [num_reqs, max_num_logprobs + 1], column 0 is the sampled token
    logprob_token_ids: torch.Tensor
    # [num_reqs, max_num_logprobs + 1]
    logprobs: torch.Tensor
    # [num_reqs]
    selected_token_ranks: torch.Tensor

    def to_cpu_nonblocking(self) -> "LogprobsTensors":
        return LogprobsTensors(*(t.to("cpu", non_blocking=True) for t in self))

    def tolists(self) -> LogprobsLists:
        return LogprobsLists(*(t.tolist() for t in self))
