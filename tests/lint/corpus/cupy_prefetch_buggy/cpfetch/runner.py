import logging
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field

import cupy

from .constants import BLOCK_TOKENS, CACHE_DTYPE
from .prefetcher import BlockPrefetcher
from .streams import DeviceStreams, pinned_blocks

logger = logging.getLogger(__name__)


@dataclass
class RunnerConfig:
    num_gpu_blocks: int
    num_host_blocks: int
    num_kv_heads: int
    head_size: int
    device_id: int = 0


@dataclass
class DecodeBatch:
    tokens: cupy.ndarray
    block_table: cupy.ndarray
    evictions: list[tuple[int, int]] = field(default_factory=list)
    swap_in_blocks: list[int] = field(default_factory=list)
    swap_in_keys: list[bytes] = field(default_factory=list)


class DecodeRunner:
    def __init__(self, cfg: RunnerConfig, model_fn: Callable,
                 tier: dict[bytes, object]) -> None:
        self.cfg = cfg
        self.model_fn = model_fn
        self.streams = DeviceStreams(cfg.device_id)
        block_shape = (2, BLOCK_TOKENS, cfg.num_kv_heads, cfg.head_size)
        with self.streams.device:
            self.gpu_cache = cupy.zeros(
                (cfg.num_gpu_blocks, *block_shape), dtype=CACHE_DTYPE)
        self.host_cache = pinned_blocks(
            cfg.num_host_blocks, block_shape, CACHE_DTYPE)
        self.prefetcher = BlockPrefetcher(
            self.gpu_cache, self.host_cache, tier, self.streams)
        self._pending: list[Future] = []
        self._step_start: cupy.cuda.Event | None = None
        self._step_end: cupy.cuda.Event | None = None

    def ready_blocks(self) -> list[int]:
        done = [f for f in self._pending if f.done()]
        self._pending = [f for f in self._pending if not f.done()]
        return [b for f in done for b in f.result()]

    def step(self, batch: DecodeBatch) -> cupy.ndarray:
        with self.streams.main:
            self._step_start = self.streams.main.record()
            logits = self.model_fn(batch.tokens, self.gpu_cache, batch.block_table)
            self._step_end = self.streams.main.record()
        if batch.evictions:
            self.prefetcher.store(batch.evictions, after=self._step_start)
        if batch.swap_in_blocks:
            self._pending.append(self.prefetcher.load(
                batch.swap_in_blocks, batch.swap_in_keys))
        return logits

    def last_step_ms(self) -> float:
        self._step_end.synchronize()
        return cupy.cuda.get_elapsed_time(self._step_start, self._step_end)
