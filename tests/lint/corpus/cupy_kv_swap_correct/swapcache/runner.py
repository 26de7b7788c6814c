from __future__ import annotations

import dataclasses
import logging
from typing import Protocol

import cupy

from .config import CacheConfig
from .swapper import BlockSwapper

logger = logging.getLogger(__name__)


class PagedModel(Protocol):
    def forward(self, input_ids: cupy.ndarray, positions: cupy.ndarray,
                kv_cache: cupy.ndarray, block_tables: cupy.ndarray) -> cupy.ndarray: ...


@dataclasses.dataclass
class SchedulerOutput:
    input_ids: cupy.ndarray
    positions: cupy.ndarray
    block_tables: cupy.ndarray
    blocks_to_swap_out: dict[int, int] = dataclasses.field(default_factory=dict)
    blocks_to_swap_in: dict[int, int] = dataclasses.field(default_factory=dict)


class ModelRunner:
    def __init__(self, model: PagedModel, cfg: CacheConfig) -> None:
        self.model = model
        self.cfg = cfg
        self.compute_stream = cupy.cuda.Stream(non_blocking=True)
        with self.compute_stream:
            self.swapper = BlockSwapper(cfg)
            self.swapper.fence()
        self.step = 0

    def execute_model(self, sched: SchedulerOutput) -> cupy.ndarray:
        if sched.blocks_to_swap_out:
            self.swapper.swap_out(sched.blocks_to_swap_out)
        if sched.blocks_to_swap_in:
            self.swapper.swap_in(sched.blocks_to_swap_in)
        self.swapper.hand_off(self.compute_stream)

        with self.compute_stream:
            logits = self.model.forward(sched.input_ids, sched.positions,
                                        self.swapper.gpu_cache, sched.block_tables)
            next_tokens = logits.argmax(axis=-1)
            self.swapper.fence()
        self.step += 1
        logger.debug("step %d: %d tokens", self.step, int(sched.input_ids.size))
        return next_tokens
