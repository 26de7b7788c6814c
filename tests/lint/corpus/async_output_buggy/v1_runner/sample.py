# SPDX-License-Identifier: Apache-2.0
from typing import Optional

import torch
import torch.nn as nn

from v1_runner.outputs import LogprobsTensors, SamplerOutput


class Sampler(nn.Module):
    def forward(self, logits: torch.Tensor, max_num_logprobs: Optional[int]) -> SamplerOutput:
        logits = logits.to(torch.float32)
        sampled = logits.argmax(dim=-1)
        logprobs_tensors = None
        if max_num_logprobs is not None:
            raw_logprobs = logits.log_softmax(dim=-1)
            topk_logprobs, topk_ids = raw_logprobs.topk(max_num_logprobs, dim=-1)
            sampled_logprob = raw_logprobs.gather(-1, sampled.unsqueeze(-1))
            logprobs_tensors = LogprobsTensors(
                torch.cat([sampled.unsqueeze(-1), topk_ids], dim=1).to(torch.int32),
                torch.cat([sampled_logprob, topk_logprobs], dim=1),
            )
        return SamplerOutput(sampled.unsqueeze(-1).to(torch.int32), logprobs_tensors)
