from __future__ import annotations

import torch
from torch import nn

from .outputs import PLACEHOLDER_TOKEN_ID


class RejectionSampler(nn.Module):
    """Greedy verification: accept the longest prefix of draft tokens that
    matches the target model's argmax, then append one bonus token."""

    def forward(self, draft_token_ids: torch.Tensor, target_logits: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        # draft_token_ids: [num_reqs, k]; target_logits: [num_reqs, k + 1, vocab]
        num_reqs, k = draft_token_ids.shape
        target_argmax = target_logits.argmax(dim=-1)
        matches = (draft_token_ids == target_argmax[:, :k]).to(torch.int32)
        num_accepted = matches.cumprod(dim=1).sum(dim=1)
        positions = torch.arange(k + 1, device=draft_token_ids.device)
        keep = positions.unsqueeze(0) <= num_accepted.unsqueeze(1)
        output_token_ids = torch.where(keep, target_argmax, torch.full_like(target_argmax, PLACEHOLDER_TOKEN_ID))
        return output_token_ids, num_accepted
