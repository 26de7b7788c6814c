# Copyright 2024 The HuggingFace Team. All rights reserved.

from typing import Optional

import torch

from .cache_utils import Cache, DynamicCache, OffloadedCache
from .import_utils import get_logger

logger = get_logger(__name__)

NEEDS_CACHE_CONFIG = {"offloaded": OffloadedCache, "dynamic": DynamicCache}


def prepare_cache_for_generation(cache_implementation: Optional[str], device: torch.device,
                                 past_key_values: Optional[Cache] = None) -> Cache:
    if past_key_values is not None:
        return past_key_values
    if cache_implementation is None:
        return DynamicCache()
    if cache_implementation not in NEEDS_CACHE_CONFIG:
        raise ValueError(f"Unknown cache implementation {cache_implementation}")
    cache_cls = NEEDS_CACHE_CONFIG[cache_implementation]
    if cache_cls is OffloadedCache:
        logger.info("Using an offloaded KV cache; layers not in use live in host memory.")
        return OffloadedCache(device=device)
    return cache_cls()


def reorder_beams(past_key_values: Cache, beam_scores: torch.Tensor, num_beams: int):
    """Select the surviving beams and reorder the cache accordingly."""
    batch_beam = beam_scores.shape[0]
    next_scores, next_indices = torch.topk(beam_scores.view(-1, num_beams * beam_scores.shape[-1]), num_beams)
    vocab = beam_scores.shape[-1]
    beam_offsets = torch.arange(0, batch_beam, num_beams, device=beam_scores.device).unsqueeze(1)
    beam_idx = (next_indices // vocab + beam_offsets).view(-1)
    if hasattr(past_key_values, "reorder_cache"):
        past_key_values.reorder_cache(beam_idx)
    return next_scores, next_indices % vocab, beam_idx
