"""GPU worker: applies the scheduler's cache operations, then runs the model."""
import logging
from typing import Dict, List, Optional

import torch

from .cache_engine import CacheEngine, to_block_mapping

logger = logging.getLogger(__name__)


class Worker:

    def __init__(self, model_runner, cache_config, model_config, parallel_config,
                 rank: int = 0) -> None:
        self.model_runner = model_runner
        self.rank = rank
        self.cache_engine = CacheEngine(cache_config, model_config, parallel_config)
        self.cache_events = self.cache_engine.events
        self.gpu_cache = self.cache_engine.gpu_cache
        self._steps = 0

    def _issue_cache_ops(self, blocks_to_swap_in: Dict[int, int],
                         blocks_to_swap_out: Dict[int, int],
                         blocks_to_copy: Dict[int, List[int]]) -> bool:
        issued = False
        if blocks_to_swap_in or blocks_to_swap_out:
            # Swap-out reads blocks the previous step wrote, and swap-in
            # overwrites blocks whose last readers may still be queued on the
            # compute stream: order the cache stream behind it first.
            self.cache_engine.cache_stream.wait_stream(torch.cuda.current_stream())
        if blocks_to_swap_in:
            self.cache_engine.swap_in(to_block_mapping(blocks_to_swap_in))
            issued = True
        if blocks_to_swap_out:
            self.cache_engine.swap_out(to_block_mapping(blocks_to_swap_out))
            issued = True
        if blocks_to_copy:
            pairs = [(s, d) for s, ds in blocks_to_copy.items() for d in ds]
            mapping = torch.tensor(pairs, dtype=torch.int64, device="cuda").view(-1, 2)
            self.cache_engine.copy(mapping)
        return issued

    @torch.inference_mode()
    def execute_model(self, seq_group_metadata_list, blocks_to_swap_in: Dict[int, int],
                      blocks_to_swap_out: Dict[int, int],
                      blocks_to_copy: Dict[int, List[int]]) -> Optional[dict]:
        self._steps += 1
        issued_cache_op = self._issue_cache_ops(
            blocks_to_swap_in, blocks_to_swap_out, blocks_to_copy)
        cache_events = self.cache_events if issued_cache_op else None

        if not seq_group_metadata_list:
            # Nothing to run: still make sure the swaps finished.
            if cache_events is not None:
                for event in cache_events:
                    event.wait()
            return {}

        # Each attention layer calls cache_events[i].wait() before reading
        # its KV cache, so the model only waits for the layer it needs.
        output = self.model_runner.execute_model(
            seq_group_metadata_list, self.gpu_cache, cache_events)
        if self._steps % 1000 == 0:
            logger.debug("rank %d: %d steps", self.rank, self._steps)
        return output
