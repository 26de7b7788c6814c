import logging
import time
from dataclasses import dataclass
from typing import Callable, Optional

import torch

from .sample_state import SampleState, ScheduledRequests
from .sampler import TorchSampler

logger = logging.getLogger(__name__)


@dataclass
class BatchState:
    sample_state: SampleState
    iter_start_time: float


class PyExecutor:

    def __init__(self, model: torch.nn.Module, sampler: TorchSampler,
                 scheduler: Callable[[], Optional[ScheduledRequests]], end_id: int):
        self.model = model
        self.sampler = sampler
        self.scheduler = scheduler
        self.end_id = end_id
        self.iter_counter = 0
        self.num_finished_by_eos = 0

    @torch.inference_mode()
    def _forward_step(self, scheduled: ScheduledRequests,
                      new_tokens_device: Optional[torch.Tensor]) -> dict[str, torch.Tensor]:
        # In overlap mode the previous iteration's tokens are consumed directly on device.
        return self.model(scheduled, new_tokens_device)

    def _update_iter_stats(self, batch_state: BatchState) -> None:
        state = batch_state.sample_state
        tokens = state.host.new_tokens.tolist()
        self.num_finished_by_eos += sum(1 for t in tokens if t == self.end_id)
        latency_ms = (time.perf_counter() - batch_state.iter_start_time) * 1e3
        logger.debug("iter %d: batch=%d latency=%.2fms", self.iter_counter,
                     state.scheduled_requests.batch_size, latency_ms)

    def _process_previous_batch(self, batch_state: BatchState) -> None:
        self.sampler.update_requests(batch_state.sample_state)
        self._update_iter_stats(batch_state)

    def _executor_loop_overlap(self) -> None:
        previous_batch: Optional[BatchState] = None
        while True:
            scheduled = self.scheduler()
            if scheduled is None:
                break
            iter_start = time.perf_counter()
            prev_tokens = previous_batch.sample_state.device.new_tokens if previous_batch else None
            outputs = self._forward_step(scheduled, prev_tokens)
            sample_state = self.sampler.sample_async(scheduled, outputs)
            if previous_batch is not None:
                self._process_previous_batch(previous_batch)
            previous_batch = BatchState(sample_state=sample_state, iter_start_time=iter_start)
            self.iter_counter += 1
        if previous_batch is not None:
            self._process_previous_batch(previous_batch)
