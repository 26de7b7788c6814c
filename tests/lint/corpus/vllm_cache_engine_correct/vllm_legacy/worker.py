"""A GPU worker class (trimmed to the cache-management path)."""

from __future__ import annotations

from typing import Optional

import torch

from vllm_legacy.cache_engine import CacheEngine
from vllm_legacy.config import CacheConfig


class Worker:
    def __init__(self, model_config, parallel_config, model_runner) -> None:
        self.model_config = model_config
        self.parallel_config = parallel_config
        self.model_runner = model_runner
        self.cache_engine: Optional[CacheEngine] = None
        self.cache_events = None
        self.gpu_cache = None

    def init_cache_engine(self, cache_config: CacheConfig) -> None:
        self.cache_engine = CacheEngine(cache_config, self.model_config, self.parallel_config)
        self.cache_events = self.cache_engine.events
        self.gpu_cache = self.cache_engine.gpu_cache

    @torch.inference_mode()
    def execute_model(
        self,
        seq_group_metadata_list,
        blocks_to_swap_in: dict[int, int],
        blocks_to_swap_out: dict[int, int],
        blocks_to_copy: dict[int, list[int]],
    ):
        # Issue cache operations.
        issued_cache_op = False
        if blocks_to_swap_in:
            self.cache_engine.swap_in(blocks_to_swap_in)
            issued_cache_op = True
        if blocks_to_swap_out:
            self.cache_engine.swap_out(blocks_to_swap_out)
            issued_cache_op = True
        if blocks_to_copy:
            self.cache_engine.copy(blocks_to_copy)
            issued_cache_op = True

        cache_events = self.cache_events if issued_cache_op else None

        # Wait for cache operations to finish.
        if cache_events is not None:
            for event in cache_events:
                event.wait()
        # If there is no input, we don't need to execute the model.
        if not seq_group_metadata_list:
            return None

        # The model reads and appends to gpu_cache on the current stream; the
        # sampled ids stay on the GPU and are drained by the async output processor.
        return self.model_runner.execute_model(seq_group_metadata_list, self.gpu_cache)
