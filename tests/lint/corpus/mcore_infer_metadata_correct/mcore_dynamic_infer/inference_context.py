# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
from typing import Dict, List

import torch


class DynamicInferenceContext:
    """Per-request state of the active batch, kept on the device."""

    def __init__(self, max_requests: int, device: torch.device):
        self.max_requests = max_requests
        self.device = device
        self.total_request_count = 0
        self.host_request_ids: List[int] = []
        self.last_token_ids = torch.zeros(max_requests, dtype=torch.int64, device=device)
        self.sequence_lengths = torch.zeros(max_requests, dtype=torch.int32, device=device)
        self.max_sequence_lengths = torch.zeros(max_requests, dtype=torch.int32, device=device)
        self.finished_flags = torch.zeros(max_requests, dtype=torch.int8, device=device)

    def metadata_tensors(self) -> Dict[str, torch.Tensor]:
        return {
            "last_token_ids": self.last_token_ids,
            "sequence_lengths": self.sequence_lengths,
            "finished_flags": self.finished_flags,
        }

    def add_request(self, request_id: int, last_prompt_token: int, prompt_len: int, max_len: int) -> None:
        if self.total_request_count >= self.max_requests:
            raise RuntimeError("request overflow")
        idx = self.total_request_count
        self.last_token_ids[idx] = last_prompt_token
        self.sequence_lengths[idx] = prompt_len
        self.max_sequence_lengths[idx] = max_len
        self.finished_flags[idx] = 0
        self.host_request_ids.append(request_id)
        self.total_request_count += 1

    def update_requests(self, new_tokens: torch.Tensor, termination_id: int) -> None:
        n = self.total_request_count
        self.last_token_ids[:n].copy_(new_tokens)
        self.sequence_lengths[:n] += 1
        finished = (new_tokens == termination_id) | (self.sequence_lengths[:n] >= self.max_sequence_lengths[:n])
        self.finished_flags[:n].copy_(finished.to(torch.int8))

    def compact(self, keep: List[int]) -> None:
        index = torch.tensor(keep, dtype=torch.int64, device=self.device)
        n = len(keep)
        for tensor in (self.last_token_ids, self.sequence_lengths, self.max_sequence_lengths, self.finished_flags):
            tensor[:n] = tensor.index_select(0, index)
        self.host_request_ids = [self.host_request_ids[i] for i in keep]
        self.total_request_count = n
