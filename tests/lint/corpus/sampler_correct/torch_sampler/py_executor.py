import logging
import queue
import threading
from typing import Optional

import torch

from .sample_state import SampleState
from .sampler import TorchSampler

logger = logging.getLogger("tensorrt_llm")


class OverlapExecutor:
    """Launches step N+1 before reading back the tokens of step N."""

    def __init__(self, model_engine, sampler: TorchSampler,
                 scheduler_queue: "queue.Queue", response_queue: "queue.Queue"):
        self.model_engine = model_engine
        self.sampler = sampler
        self.scheduler_queue = scheduler_queue
        self.response_queue = response_queue
        self.is_shutdown = threading.Event()

    def _next_batch(self):
        try:
            return self.scheduler_queue.get(timeout=0.005)
        except queue.Empty:
            return None

    @torch.inference_mode()
    def _executor_loop_overlap(self) -> None:
        previous_state: Optional[SampleState] = None
        while not self.is_shutdown.is_set():
            scheduled_batch = self._next_batch()
            if scheduled_batch is not None:
                outputs = self.model_engine.forward(scheduled_batch)
                sample_state = self.sampler.sample_async(scheduled_batch, outputs)
            else:
                sample_state = None
            if previous_state is not None:
                self.sampler.update_requests(previous_state)
                self._emit(previous_state)
            previous_state = sample_state

    def _emit(self, state: SampleState) -> None:
        for request_id in state.finished_ids:
            self.response_queue.put(request_id)
