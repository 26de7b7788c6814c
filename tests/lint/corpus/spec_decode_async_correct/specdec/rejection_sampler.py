from __future__ import annotations

import torch
import torch.nn as nn

PLACEHOLDER_TOKEN_ID = -1


class RejectionSampler(nn.Module):
    """Greedy verification: a draft token is kept while it matches the target argmax."""

    def forward(
        self, draft_token_ids: torch.Tensor, target_logits: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        # draft_token_ids: [B, K], target_logits: [B, K + 1, V]
        target_ids = target_logits.argmax(dim=-1)
        matches = draft_token_ids == target_ids[:, :-1]
        num_accepted = matches.int().cumprod(dim=1).sum(dim=1)
        positions = torch.arange(target_ids.shape[1], device=target_ids.device)
        keep = positions[None, :] <= num_accepted[:, None]
        output_token_ids = torch.where(keep, target_ids, PLACEHOLDER_TOKEN_ID)
        return output_token_ids, num_accepted
