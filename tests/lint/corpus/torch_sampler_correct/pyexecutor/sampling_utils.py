from typing import Optional, Tuple

import torch


def greedy_search_sampling_batch(logits: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
    log_probs = torch.log_softmax(logits.float(), dim=-1)
    next_tokens = torch.argmax(log_probs, dim=-1)
    return next_tokens, log_probs


def top_k_sampling_batch(logits: torch.Tensor, top_k: int,
                         generator: Optional[torch.Generator] = None) -> Tuple[torch.Tensor, torch.Tensor]:
    values, indices = torch.topk(logits.float(), top_k, dim=-1)
    log_probs = torch.full_like(logits, float("-inf"), dtype=torch.float32)
    log_probs.scatter_(-1, indices, torch.log_softmax(values, dim=-1))
    choice = torch.multinomial(log_probs.exp(), 1, generator=generator).squeeze(-1)
    return choice, log_probs


def gather_token_log_probs(log_probs: torch.Tensor, tokens: torch.Tensor) -> torch.Tensor:
    return log_probs.gather(-1, tokens.unsqueeze(-1)).squeeze(-1)
