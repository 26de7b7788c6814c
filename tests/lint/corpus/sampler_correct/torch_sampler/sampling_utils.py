from typing import Optional, Tuple

import torch


def greedy_search_sampling_batch(
        logits: torch.Tensor,
        return_log_probs: bool = False,
) -> Tuple[torch.Tensor, Optional[torch.Tensor]]:
    next_tokens = torch.argmax(logits, dim=-1)
    if not return_log_probs:
        return next_tokens, None
    log_probs = torch.log_softmax(logits.float(), dim=-1)
    token_log_probs = log_probs.gather(-1, next_tokens.unsqueeze(-1)).squeeze(-1)
    return next_tokens, token_log_probs


def pinned_like(tensor: torch.Tensor) -> torch.Tensor:
    return torch.empty(tensor.shape, dtype=tensor.dtype, device="cpu", pin_memory=True)
