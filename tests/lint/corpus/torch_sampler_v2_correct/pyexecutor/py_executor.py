from __future__ import annotations

import logging
import queue
import threading
from dataclasses import dataclass
from typing import Callable, List, Optional

import torch

from pyexecutor.llm_request import LlmRequest, LlmRequestState, ScheduledRequests
from pyexecutor.sample_state import SampleState
from pyexecutor.sampler import TorchSampler

logger = logging.getLogger(__name__)


@dataclass
class BatchState:
    sample_state: SampleState
    iter_num: int


class PyExecutor:
    def __init__(
        self,
        model_forward: Callable[[ScheduledRequests], dict[str, torch.Tensor]],
        sampler: TorchSampler,
        max_batch_size: int,
    ):
        self.model_forward = model_forward
        self.sampler = sampler
        self.max_batch_size = max_batch_size
        self.request_queue: "queue.Queue[LlmRequest]" = queue.Queue()
        self.active_requests: List[LlmRequest] = []
        self.free_slots = list(range(max_batch_size))
        self.previous_batch: Optional[BatchState] = None
        self.is_shutdown = threading.Event()
        self.iter_counter = 0

    def enqueue_request(self, request: LlmRequest) -> None:
        self.request_queue.put(request)

    def _fetch_new_requests(self) -> None:
        while self.free_slots and not self.request_queue.empty():
            req = self.request_queue.get_nowait()
            req.py_seq_slot = self.free_slots.pop()
            self.active_requests.append(req)

    def _schedule(self) -> ScheduledRequests:
        scheduled = ScheduledRequests()
        for req in self.active_requests:
            if req.state == LlmRequestState.CONTEXT_INIT:
                scheduled.context_requests.append(req)
            elif req.state == LlmRequestState.GENERATION_IN_PROGRESS:
                scheduled.generation_requests.append(req)
        return scheduled

    def _update_requests(self, sample_state: SampleState) -> None:
        self.sampler.update_requests(sample_state)
        for req in list(self.active_requests):
            if req.state == LlmRequestState.GENERATION_COMPLETE:
                self.active_requests.remove(req)
                self.free_slots.append(req.py_seq_slot)

    def _executor_loop_overlap(self) -> None:
        while not self.is_shutdown.is_set():
            self._fetch_new_requests()
            scheduled_batch = self._schedule()
            if scheduled_batch.batch_size == 0 and self.previous_batch is None:
                continue
            sample_state = None
            if scheduled_batch.batch_size > 0:
                outputs = self.model_forward(scheduled_batch)
                sample_state = self.sampler.sample_async(scheduled_batch, outputs)
            if self.previous_batch is not None:
                self._update_requests(self.previous_batch.sample_state)
            self.previous_batch = (
                BatchState(sample_state, self.iter_counter) if sample_state is not None else None
            )
            self.iter_counter += 1
