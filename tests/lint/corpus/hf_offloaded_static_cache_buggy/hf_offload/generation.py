# coding=utf-8
# Copyright 2024 The HuggingFace Inc. team.
"""Minimal greedy loop driving a decoder with an offloaded static cache."""

import logging

import torch

from .cache_utils import OffloadedStaticCache

logger = logging.getLogger(__name__)


@torch.no_grad()
def greedy_decode(model: torch.nn.Module, input_ids: torch.LongTensor, cache: OffloadedStaticCache,
                  max_new_tokens: int = 32) -> torch.LongTensor:
    cache_position = torch.arange(input_ids.shape[1], device=input_ids.device)
    tokens = input_ids
    next_input = input_ids
    cache_start = 0
    for _ in range(max_new_tokens):
        cache_kwargs = {"cache_position": cache_position, "cache_start": cache_start}
        logits = model(next_input, past_key_values=cache, cache_kwargs=cache_kwargs).logits
        cache_start += next_input.shape[1]
        next_input = logits[:, -1:].argmax(dim=-1)
        tokens = torch.cat([tokens, next_input], dim=-1)
        cache_position = cache_position[-1:] + 1
    return tokens
