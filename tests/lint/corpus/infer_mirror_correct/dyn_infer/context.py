# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
from dataclasses import dataclass, field

import torch

from .constants import MAX_ACTIVE_REQUESTS


@dataclass
class DynamicInferenceContext:
    """Device-side bookkeeping of the requests in flight."""

    max_requests: int = MAX_ACTIVE_REQUESTS
    device: torch.device = field(default_factory=lambda: torch.device("cuda", torch.cuda.current_device()))
    active_count: int = 0
    request_ids: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.next_tokens = torch.zeros(self.max_requests, dtype=torch.int64, device=self.device)
        self.request_lengths = torch.zeros(self.max_requests, dtype=torch.int32, device=self.device)
        self.finished = torch.zeros(self.max_requests, dtype=torch.bool, device=self.device)
