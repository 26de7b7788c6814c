import logging
import queue
import time
from dataclasses import dataclass
from typing import List, Optional

import torch

from pyexecutor.config import PyExecutorConfig
from pyexecutor.llm_request import LlmRequest, LlmRequestState, LlmResponse
from pyexecutor.sampler import SampleState, TorchSampler

logger = logging.getLogger(__name__)


@dataclass
class BatchState:
    sample_state: SampleState
    iter_start_time: float


class PyExecutor:
    def __init__(self, model_engine, scheduler, sampler: TorchSampler, config: PyExecutorConfig, device_id: int = 0):
        self.model_engine = model_engine
        self.scheduler = scheduler
        self.sampler = sampler
        self.config = config
        self.device_id = device_id
        self.active_requests: List[LlmRequest] = []
        self.response_queue: "queue.Queue[LlmResponse]" = queue.Queue()
        self.previous_batch: Optional[BatchState] = None
        self.is_shutdown = False

    def _executor_loop_overlap(self) -> None:
        torch.cuda.set_device(self.device_id)
        while not self.is_shutdown:
            iter_start_time = time.perf_counter()
            scheduled_batch = self.scheduler.schedule_request(self.active_requests)
            sample_state = None
            if scheduled_batch.batch_size > 0:
                batch_outputs = self.model_engine.forward(scheduled_batch)
                sample_state = self.sampler.sample_async(scheduled_batch, batch_outputs)
            if self.previous_batch is not None:
                self._process_previous_batch()
            self.previous_batch = (
                BatchState(sample_state, iter_start_time) if sample_state is not None else None
            )

    def _process_previous_batch(self) -> None:
        state = self.previous_batch.sample_state
        if self.config.stream_first_token:
            self._emit_first_tokens(state)
        self.sampler.update_requests(state)
        self._handle_responses(state)

    def _emit_first_tokens(self, state: SampleState) -> None:
        for req in state.scheduled_requests.context_requests:
            if req.context_remaining_length != 0 or not req.streaming:
                continue
            # expect: KVG003
            first_token = int(state.host.new_tokens[req.py_seq_slot, 0])
            self.response_queue.put(LlmResponse(req.py_request_id, [first_token], is_final=False))

    def _handle_responses(self, state: SampleState) -> None:
        still_active = []
        for req in self.active_requests:
            done = req.state is LlmRequestState.GENERATION_COMPLETE
            if done or req.streaming:
                self.response_queue.put(LlmResponse(req.py_request_id, list(req.tokens), is_final=done))
            if not done:
                still_active.append(req)
        self.active_requests = still_active
