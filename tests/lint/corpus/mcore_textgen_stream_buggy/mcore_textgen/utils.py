# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
from typing import List, Set

import torch

from .sampling_params import SamplingParams


def sample_logits(last_token_logits: torch.Tensor, sampling_params: SamplingParams) -> torch.Tensor:
    if sampling_params.top_k == 1 or sampling_params.temperature == 0.0:
        return torch.argmax(last_token_logits, dim=-1)
    logits = last_token_logits.float() / sampling_params.temperature
    if sampling_params.top_k > 1:
        kth = torch.topk(logits, sampling_params.top_k, dim=-1).values[:, -1:]
        logits = logits.masked_fill(logits < kth, float("-inf"))
    probs = torch.softmax(logits, dim=-1)
    return torch.multinomial(probs, num_samples=1).view(-1)


def collect_step_tokens(host_tokens: torch.Tensor, stop_ids: Set[int], finished: List[bool],
                        generated: List[List[int]]) -> bool:
    # expect: KVG003
    step_tokens = host_tokens.tolist()
    for i, tok in enumerate(step_tokens):
        if finished[i]:
            continue
        generated[i].append(tok)
        if tok in stop_ids:
            finished[i] = True
    return all(finished)
