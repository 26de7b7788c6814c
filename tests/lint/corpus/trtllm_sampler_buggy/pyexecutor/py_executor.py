from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import Callable, Optional

import torch

from .llm_request import ScheduledRequests
from .sampler import SampleState, TorchSampler

logger = logging.getLogger("tensorrt_llm")


@dataclass
class BatchState:
    sample_state: SampleState
    iter_start_time: float = 0.0


class PyExecutor:

    def __init__(self,
                 model_forward: Callable[[ScheduledRequests], dict],
                 scheduler: Callable[[], Optional[ScheduledRequests]],
                 sampler: TorchSampler,
                 enable_iter_perf_stats: bool = False):
        self.model_forward = model_forward
        self.scheduler = scheduler
        self.sampler = sampler
        self.enable_iter_perf_stats = enable_iter_perf_stats
        self.previous_batch: Optional[BatchState] = None
        self.iter_stats: list[dict] = []
        self.is_shutdown = False

    @torch.inference_mode()
    def _executor_loop_overlap(self) -> None:
        while not self.is_shutdown:
            iter_start_time = time.perf_counter()
            scheduled_batch = self.scheduler()
            if scheduled_batch is None or scheduled_batch.batch_size == 0:
                if self.previous_batch is not None:
                    self._process_previous_batch()
                    self.previous_batch = None
                self.is_shutdown = scheduled_batch is None
                continue
            batch_outputs = self.model_forward(scheduled_batch)
            sample_state = self.sampler.sample_async(scheduled_batch,
                                                     batch_outputs)
            if self.previous_batch is not None:
                self._process_previous_batch()
            self.previous_batch = BatchState(sample_state=sample_state,
                                             iter_start_time=iter_start_time)

    def _process_previous_batch(self) -> None:
        state = self.previous_batch.sample_state
        if self.enable_iter_perf_stats:
            self._record_iter_stats(state, self.previous_batch.iter_start_time)
        self.sampler.update_requests(state)

    def _record_iter_stats(self, state: SampleState,
                           iter_start_time: float) -> None:
        # expect: KVG003
        num_generated = int(state.host.new_tokens_lens.sum())
        self.iter_stats.append({
            "num_scheduled": state.scheduled_requests.batch_size,
            "num_generated_tokens": num_generated,
            "iter_latency_ms": (time.perf_counter() - iter_start_time) * 1e3,
        })
        logger.info("iteration stats: %s", self.iter_stats[-1])
