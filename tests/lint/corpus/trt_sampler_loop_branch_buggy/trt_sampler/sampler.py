"""Greedy sampler with an asynchronous device-to-host copy of the new tokens."""

from dataclasses import dataclass
from typing import List

import torch

from trt_sampler.stop_criteria import StopCriteria


@dataclass
class SampleStateHost:
    new_tokens: torch.Tensor


@dataclass
class SampleState:
    requests: List
    new_tokens_device: torch.Tensor
    host: SampleStateHost
    sampler_event: torch.cuda.Event


class TorchSampler:
    def __init__(self, stop_criteria: StopCriteria):
        self.stop_criteria = stop_criteria

    def sample_async(self, requests, logits: torch.Tensor) -> SampleState:
        new_tokens = torch.argmax(logits, dim=-1).to(torch.int32)
        host_tokens = torch.empty(new_tokens.shape, dtype=torch.int32, pin_memory=True)
        host_tokens.copy_(new_tokens, non_blocking=True)
        event = torch.cuda.Event()
        event.record()
        return SampleState(requests, new_tokens, SampleStateHost(host_tokens), event)

    def update_requests(self, state: SampleState) -> List:
        token_ids, finished = self.stop_criteria(state.host.new_tokens, state.requests)
        done = []
        for req, tok, fin in zip(state.requests, token_ids, finished):
            req.output_token_ids.append(tok)
            if fin:
                done.append(req)
        return done
