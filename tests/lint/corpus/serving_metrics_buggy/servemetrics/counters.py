from __future__ import annotations

import enum

import torch


class Counter(enum.IntEnum):
    PROMPT_TOKENS = 0
    GENERATION_TOKENS = 1
    SPEC_DRAFT_TOKENS = 2
    SPEC_ACCEPTED_TOKENS = 3
    PREFIX_CACHE_QUERIES = 4
    PREFIX_CACHE_HITS = 5
    FINISHED_REQUESTS = 6


class GpuCounters:
    """Monotonic int64 counters updated by kernels, never synchronised per step."""

    def __init__(self, device: torch.device) -> None:
        self.values = torch.zeros(len(Counter), dtype=torch.int64, device=device)
        self._spec_idx = torch.tensor(
            [Counter.SPEC_DRAFT_TOKENS, Counter.SPEC_ACCEPTED_TOKENS], dtype=torch.int64, device=device
        )
        self._token_idx = torch.tensor(
            [Counter.PROMPT_TOKENS, Counter.GENERATION_TOKENS], dtype=torch.int64, device=device
        )

    def add_tokens(self, num_prompt: torch.Tensor, num_generated: torch.Tensor) -> None:
        self.values.index_add_(0, self._token_idx, torch.stack([num_prompt.sum(), num_generated.sum()]))

    def add_spec_decode(self, num_draft: torch.Tensor, num_accepted: torch.Tensor) -> None:
        self.values.index_add_(0, self._spec_idx, torch.stack([num_draft.sum(), num_accepted.sum()]))

    def add_finished(self, finished_mask: torch.Tensor) -> None:
        self.values[Counter.FINISHED_REQUESTS] += finished_mask.sum()
