from typing import List

import torch

from .llm_request import LlmRequest


def gather_log_probs_async(logits: torch.Tensor, new_tokens: torch.Tensor) -> torch.Tensor:
    """Log-probability of each sampled token, copied to pinned host memory."""
    log_probs = torch.log_softmax(logits.float(), dim=-1)
    picked = log_probs.gather(-1, new_tokens.unsqueeze(-1)).squeeze(-1)
    return picked.to("cpu", non_blocking=True)


def append_log_probs(requests: List[LlmRequest], log_probs_host: torch.Tensor) -> None:
    values = log_probs_host.tolist()
    for req in requests:
        if req.py_return_log_probs:
            req.py_log_probs.append(values[req.py_batch_idx])
