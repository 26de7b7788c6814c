from __future__ import annotations

from dataclasses import dataclass, field

import torch


@dataclass
class SpecBatch:
    req_ids: list[str]
    input_ids: torch.Tensor  # [B, K + 1] on the GPU
    positions: torch.Tensor  # [B, K + 1] on the GPU
    draft_token_ids: torch.Tensor  # [B, K] on the GPU


@dataclass
class AsyncSpecOutput:
    """Model-runner output whose host copies may still be in flight."""

    req_ids: list[str]
    sampled_token_ids_cpu: torch.Tensor
    num_accepted_cpu: torch.Tensor
    draft_token_ids_cpu: torch.Tensor
    copy_ready: torch.cuda.Event
    # Keep the device tensors alive until the copies have been consumed.
    _device_refs: tuple[torch.Tensor, ...] = field(default=(), repr=False)

    def get_draft_token_ids(self) -> list[list[int]]:
        self.copy_ready.synchronize()
        return self.draft_token_ids_cpu.tolist()
