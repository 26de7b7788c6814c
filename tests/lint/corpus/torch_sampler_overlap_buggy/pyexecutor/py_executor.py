import logging
import time
from collections import deque
from dataclasses import dataclass
from typing import Deque, List, Optional

from .llm_request import LlmRequest, LlmRequestState
from .sampler import SampleState, ScheduledRequests, TorchSampler

logger = logging.getLogger(__name__)


@dataclass
class BatchState:
    sample_state: SampleState
    iter_start_time: float = 0.0


class PyExecutor:
    """Overlap executor: batch N+1 is launched before the host consumes batch N."""

    def __init__(self, model_engine, sampler: TorchSampler, max_batch_size: int):
        self.model_engine = model_engine
        self.sampler = sampler
        self.max_batch_size = max_batch_size
        self.waiting_queue: Deque[LlmRequest] = deque()
        self.active_requests: List[LlmRequest] = []
        self.free_seq_slots = list(range(sampler.max_num_sequences))
        self.is_shutdown = False
        self.responses: dict[int, List[int]] = {}

    def enqueue_request(self, request: LlmRequest) -> None:
        self.waiting_queue.append(request)

    def _schedule(self) -> Optional[ScheduledRequests]:
        while self.waiting_queue and self.free_seq_slots and len(self.active_requests) < self.max_batch_size:
            req = self.waiting_queue.popleft()
            req.py_seq_slot = self.free_seq_slots.pop()
            self.active_requests.append(req)
        if not self.active_requests:
            return None
        batch = ScheduledRequests()
        for req in self.active_requests:
            if req.is_context_init_state:
                batch.context_requests.append(req)
            elif req.state == LlmRequestState.GENERATION_IN_PROGRESS:
                batch.generation_requests.append(req)
        return batch

    def _update_request_states(self, batch: ScheduledRequests) -> None:
        for req in batch.context_requests:
            req.context_remaining_length = 0
            req.state = LlmRequestState.GENERATION_IN_PROGRESS

    def _handle_responses(self) -> None:
        still_active = []
        for req in self.active_requests:
            if req.state == LlmRequestState.GENERATION_COMPLETE:
                self.responses[req.request_id] = req.tokens[req.prompt_len :]
                self.free_seq_slots.append(req.py_seq_slot)
            else:
                still_active.append(req)
        self.active_requests = still_active

    def _process_previous_batch(self, previous: BatchState) -> None:
        self.sampler.update_requests(previous.sample_state)
        self._handle_responses()

    def _executor_loop_overlap(self) -> None:
        previous: Optional[BatchState] = None
        while not self.is_shutdown:
            batch = self._schedule()
            if batch is None:
                break
            logits = self.model_engine.forward(batch)
            sample_state = self.sampler.sample_async(batch, logits)
            self._update_request_states(batch)
            if previous is not None:
                self._process_previous_batch(previous)
            previous = BatchState(sample_state=sample_state, iter_start_time=time.time())
        if previous is not None:
            self._process_previous_batch(previous)
