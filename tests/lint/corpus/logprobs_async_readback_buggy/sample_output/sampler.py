# SPDX-License-Identifier: Apache-2.0
from dataclasses import dataclass

import torch
import torch.nn as nn

from .outputs import LogprobsTensors

_SAMPLING_EPS = 1e-5


@dataclass
class SamplingMetadata:
    temperature: torch.Tensor  # [num_reqs], on device
    max_num_logprobs: int | None
    generators: dict[int, torch.Generator]


@dataclass
class SamplerOutput:
    sampled_token_ids: torch.Tensor  # [num_reqs]
    logprobs_tensors: LogprobsTensors | None


def gather_logprobs(logprobs: torch.Tensor, num_logprobs: int, token_ids: torch.Tensor) -> LogprobsTensors:
    topk_logprobs, topk_indices = torch.topk(logprobs, num_logprobs, dim=-1)
    token_ids = token_ids.unsqueeze(-1)
    token_logprobs = logprobs.gather(-1, token_ids)
    # rank of the sampled token among all vocab entries (1-based)
    token_ranks = (logprobs > token_logprobs).sum(-1) + 1
    indices = torch.cat((token_ids, topk_indices), dim=1).to(torch.int32)
    values = torch.cat((token_logprobs, topk_logprobs), dim=1)
    return LogprobsTensors(indices, values, token_ranks.to(torch.int32))


class Sampler(nn.Module):
    def forward(self, logits: torch.Tensor, metadata: SamplingMetadata) -> SamplerOutput:
        raw_logprobs = None
        if metadata.max_num_logprobs is not None:
            raw_logprobs = logits.log_softmax(dim=-1, dtype=torch.float32)

        greedy = logits.argmax(dim=-1)
        temperature = metadata.temperature.clamp(min=_SAMPLING_EPS).unsqueeze(-1)
        probs = (logits / temperature).softmax(dim=-1, dtype=torch.float32)
        q = torch.empty_like(probs).exponential_()
        for i, generator in metadata.generators.items():
            q[i].exponential_(generator=generator)
        random = probs.div_(q).argmax(dim=-1)
        sampled = torch.where(metadata.temperature < _SAMPLING_EPS, greedy, random)

        logprobs_tensors = None
        if raw_logprobs is not None:
            logprobs_tensors = gather_logprobs(raw_logprobs, metadata.max_num_logprobs, sampled)
        return SamplerOutput(sampled, logprobs_tensors)
