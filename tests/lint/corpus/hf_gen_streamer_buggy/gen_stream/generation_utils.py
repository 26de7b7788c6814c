# Copyright 2023 The HuggingFace Inc. team.

from dataclasses import dataclass
from typing import Optional

import torch
import torch.nn.functional as F

from .streamers import BaseStreamer


@dataclass
class GenerationConfig:
    max_new_tokens: int = 128
    do_sample: bool = False
    temperature: float = 1.0
    top_k: int = 50
    eos_token_id: Optional[int] = None
    pad_token_id: int = 0


def _top_k_filter(scores: torch.Tensor, top_k: int) -> torch.Tensor:
    top_k = min(top_k, scores.size(-1))
    threshold = torch.topk(scores, top_k)[0][..., -1, None]
    return scores.masked_fill(scores < threshold, -float("inf"))


@torch.no_grad()
def sample(model, input_ids: torch.LongTensor, generation_config: GenerationConfig,
           streamer: Optional[BaseStreamer] = None) -> torch.LongTensor:
    """Greedy / multinomial decoding loop with optional streaming of the new tokens."""
    batch_size = input_ids.shape[0]
    unfinished_sequences = torch.ones(batch_size, dtype=torch.long, device=input_ids.device)
    past_key_values = None
    if streamer is not None:
        streamer.put(input_ids)
    for _ in range(generation_config.max_new_tokens):
        model_inputs = input_ids if past_key_values is None else input_ids[:, -1:]
        outputs = model(model_inputs, past_key_values=past_key_values, use_cache=True)
        past_key_values = outputs.past_key_values
        next_token_scores = outputs.logits[:, -1, :].float()
        if generation_config.do_sample:
            next_token_scores = _top_k_filter(next_token_scores / generation_config.temperature,
                                              generation_config.top_k)
            next_tokens = torch.multinomial(F.softmax(next_token_scores, dim=-1), num_samples=1).squeeze(1)
        else:
            next_tokens = torch.argmax(next_token_scores, dim=-1)
        if generation_config.eos_token_id is not None:
            next_tokens = next_tokens * unfinished_sequences + generation_config.pad_token_id * (
                1 - unfinished_sequences)
            unfinished_sequences = unfinished_sequences & (next_tokens != generation_config.eos_token_id).long()
        input_ids = torch.cat([input_ids, next_tokens[:, None]], dim=-1)
        if streamer is not None:
            streamer.put(next_tokens)
        if unfinished_sequences.max() == 0:
            break
    if streamer is not None:
        streamer.end()
    return input_ids
