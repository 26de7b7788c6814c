"""Prefill a shared prompt once, keep its KV on the host, and reuse it for later generations."""

import copy

import torch

from prompt_cache.hooks import LayerwiseSnapshotter
from prompt_cache.snapshot import PromptSnapshot


@torch.no_grad()
def build_prompt_snapshot(model, prompt_ids: torch.LongTensor, cache) -> PromptSnapshot:
    with LayerwiseSnapshotter(model.model.layers, prompt_ids.shape[1]) as snapshotter:
        model(input_ids=prompt_ids, past_key_values=cache, use_cache=True)
    return snapshotter.snapshot


@torch.no_grad()
def generate_from_snapshot(model, snapshot: PromptSnapshot, empty_cache, suffix_ids, max_new_tokens: int):
    cache = copy.deepcopy(empty_cache)
    snapshot.restore_into(cache, suffix_ids.device)
    return model.generate(input_ids=suffix_ids, past_key_values=cache, max_new_tokens=max_new_tokens)
