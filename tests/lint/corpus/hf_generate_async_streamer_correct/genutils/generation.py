"""A sampling loop in the shape of ``GenerationMixin._sample``."""

from dataclasses import dataclass
from typing import Optional

import torch

from .copier import TokenCopier


@dataclass
class GenerationConfig:
    max_new_tokens: int = 64
    do_sample: bool = False
    temperature: float = 1.0
    top_k: int = 50
    eos_token_id: Optional[int] = None
    pad_token_id: int = 0


def _next_token_scores(logits: torch.Tensor, config: GenerationConfig) -> torch.Tensor:
    scores = logits[:, -1, :].float()
    if config.do_sample:
        scores = scores / config.temperature
        kth = torch.topk(scores, config.top_k, dim=-1).values[..., -1, None]
        scores = scores.masked_fill(scores < kth, float("-inf"))
    return scores


@torch.no_grad()
def sample(model, input_ids: torch.Tensor, config: GenerationConfig, streamer=None) -> torch.Tensor:
    device = input_ids.device
    batch_size = input_ids.shape[0]
    copier = TokenCopier(device) if streamer is not None else None
    unfinished_sequences = torch.ones(batch_size, dtype=torch.long, device=device)
    past_key_values = None
    model_inputs = input_ids

    if streamer is not None:
        streamer.put(copier.to_host(input_ids[0], step=-1, is_prompt=True))

    for step in range(config.max_new_tokens):
        outputs = model(model_inputs, past_key_values=past_key_values, use_cache=True)
        past_key_values = outputs.past_key_values
        scores = _next_token_scores(outputs.logits, config)
        if config.do_sample:
            next_tokens = torch.multinomial(torch.softmax(scores, dim=-1), num_samples=1).squeeze(1)
        else:
            next_tokens = torch.argmax(scores, dim=-1)
        # finished sequences keep emitting padding
        next_tokens = next_tokens * unfinished_sequences + config.pad_token_id * (1 - unfinished_sequences)

        input_ids = torch.cat([input_ids, next_tokens[:, None]], dim=-1)
        if streamer is not None:
            streamer.put(copier.to_host(next_tokens[0], step=step))

        if config.eos_token_id is not None:
            unfinished_sequences = unfinished_sequences & (next_tokens != config.eos_token_id).long()
        # one host sync per step, as transformers' stopping check does
        if unfinished_sequences.max().item() == 0:
            break
        model_inputs = next_tokens[:, None]

    if streamer is not None:
        streamer.end()
    return input_ids
