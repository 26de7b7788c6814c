import logging
import threading
from dataclasses import dataclass
from typing import List, Optional

from .llm_request import LlmRequest, LlmRequestState
from .sampler import SampleState, ScheduledRequests, TorchSampler

logger = logging.getLogger(__name__)


@dataclass
class PyTorchConfig:
    max_num_sequences: int = 256
    disable_overlap_scheduler: bool = False
    sampling_top_k: int = 0


@dataclass
class BatchState:
    sample_state: SampleState
    iter_start: int


class PyExecutor:
    def __init__(self, model_engine, config: PyTorchConfig):
        self.model_engine = model_engine
        self.config = config
        self.enable_overlap = not config.disable_overlap_scheduler
        self.sampler = TorchSampler(TorchSampler.Args(
            max_num_sequences=config.max_num_sequences,
            top_k=config.sampling_top_k,
            overlap_scheduler=self.enable_overlap,
        ))
        self.active_requests: List[LlmRequest] = []
        self.previous_batch: Optional[BatchState] = None
        self.iter_counter = 0
        self.is_shutdown = False
        loop = self._executor_loop_overlap if self.enable_overlap else self._executor_loop
        self.worker_thread = threading.Thread(target=loop, name="py_executor", daemon=True)

    def start_worker(self) -> None:
        self.worker_thread.start()

    def _schedule(self) -> ScheduledRequests:
        scheduled = ScheduledRequests()
        for req in self.active_requests:
            if req.state == LlmRequestState.CONTEXT_INIT:
                scheduled.context_requests.append(req)
            elif req.state == LlmRequestState.GENERATION_IN_PROGRESS:
                scheduled.generation_requests.append(req)
        return scheduled

    def _handle_responses(self) -> None:
        done = [r for r in self.active_requests if r.state == LlmRequestState.GENERATION_COMPLETE]
        for req in done:
            self.active_requests.remove(req)
            logger.info("request %d finished with %d tokens", req.py_request_id, req.num_generated)

    def _executor_loop(self) -> None:
        while not self.is_shutdown:
            scheduled = self._schedule()
            if not scheduled.all_requests():
                continue
            outputs = self.model_engine.forward(scheduled)
            sample_state = self.sampler.sample_async(scheduled, outputs)
            self.sampler.update_requests(sample_state)
            self._handle_responses()
            self.iter_counter += 1

    def _executor_loop_overlap(self) -> None:
        while not self.is_shutdown:
            scheduled = self._schedule()
            if scheduled.all_requests():
                outputs = self.model_engine.forward(scheduled)
                sample_state = self.sampler.sample_async(scheduled, outputs)
            else:
                sample_state = None
            if self.previous_batch is not None:
                self.sampler.update_requests(self.previous_batch.sample_state)
                self._handle_responses()
            self.previous_batch = (
                BatchState(sample_state, self.iter_counter) if sample_state is not None else None
            )
            self.iter_counter += 1
