from __future__ import annotations

import dataclasses
import logging
import time
from typing import Callable, Optional

import torch

from .llm_request import ScheduledRequests
from .resource_manager import KVCacheManager
from .sampler import SampleState, TorchSampler

logger = logging.getLogger("tllm_pyexec")


@dataclasses.dataclass
class BatchState:
    sample_state: SampleState
    iter_start_time: float


class PyExecutor:
    def __init__(self, model_engine: Callable[[ScheduledRequests, KVCacheManager], torch.Tensor],
                 scheduler: Callable[[], Optional[ScheduledRequests]],
                 kv_cache_manager: KVCacheManager, sampler: TorchSampler,
                 enable_iter_perf_stats: bool = False) -> None:
        self.model_engine = model_engine
        self.scheduler = scheduler
        self.kv_cache_manager = kv_cache_manager
        self.sampler = sampler
        self.enable_iter_perf_stats = enable_iter_perf_stats
        self.execution_stream = torch.cuda.Stream()
        self.execution_stream.wait_stream(torch.cuda.current_stream())
        self.previous_batch: Optional[BatchState] = None
        self.iter_stats: list[dict] = []

    def _executor_loop_overlap(self) -> None:
        with torch.cuda.stream(self.execution_stream):
            while True:
                scheduled = self.scheduler()
                if scheduled is None:
                    break
                iter_start = time.perf_counter()
                self.kv_cache_manager.prepare_resources(scheduled)
                logits = self.model_engine(scheduled, self.kv_cache_manager)
                sample_state = self.sampler.sample_async(scheduled, logits)
                if self.previous_batch is not None:
                    self._process_previous_batch()
                self.previous_batch = BatchState(sample_state, iter_start)
            if self.previous_batch is not None:
                self._process_previous_batch()
                self.previous_batch = None

    def _process_previous_batch(self) -> None:
        state = self.previous_batch.sample_state
        self.sampler.update_requests(state)
        if self.enable_iter_perf_stats:
            self._record_iter_stats(state, self.previous_batch.iter_start_time)
        for req in state.scheduled_requests.all_requests:
            if req.is_finished:
                logger.debug("request %d finished with %d tokens", req.request_id, len(req.tokens))
                self.kv_cache_manager.free_resources(req)

    def _record_iter_stats(self, state: SampleState, iter_start: float) -> None:
        reqs = state.scheduled_requests.all_requests
        host_tokens = state.host.new_tokens.tolist()
        num_eos = sum(1 for req, tok in zip(reqs, host_tokens) if tok == req.end_id)
        self.iter_stats.append({
            "iter_latency_ms": (time.perf_counter() - iter_start) * 1e3,
            "num_generated_tokens": len(reqs),
            "num_eos": num_eos,
        })
