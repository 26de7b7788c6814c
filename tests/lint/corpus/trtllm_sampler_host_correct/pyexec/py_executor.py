import logging
from typing import Callable, Optional

import torch

from .llm_request import LlmRequest, LlmRequestState
from .sampler import SampleState, TorchSampler

logger = logging.getLogger(__name__)


class PyExecutor:
    def __init__(self, forward_fn: Callable[[list[LlmRequest]], torch.Tensor],
                 sampler: TorchSampler, disable_overlap_scheduler: bool = False) -> None:
        self.forward_fn = forward_fn
        self.sampler = sampler
        self.disable_overlap_scheduler = disable_overlap_scheduler
        self.previous_state: Optional[SampleState] = None
        self.active_requests: list[LlmRequest] = []

    def _forward_step(self, requests: list[LlmRequest]) -> SampleState:
        logits = self.forward_fn(requests)
        return self.sampler.sample_async(requests, logits)

    def _process_previous_batch(self) -> None:
        state = self.previous_state
        if state is None:
            return
        state.sampler_event.synchronize()
        self.sampler.update_requests(state)
        self.previous_state = None

    def _executor_loop(self) -> None:
        while self.active_requests:
            scheduled = [r for r in self.active_requests
                         if r.state != LlmRequestState.GENERATION_COMPLETE]
            state = self._forward_step(scheduled)
            self._process_previous_batch()
            self.previous_state = state
            self._drop_finished()
        self._process_previous_batch()

    def _executor_loop_no_overlap(self) -> None:
        while self.active_requests:
            scheduled = [r for r in self.active_requests
                         if r.state != LlmRequestState.GENERATION_COMPLETE]
            state = self._forward_step(scheduled)
            state.sampler_event.synchronize()
            self.sampler.update_requests(state)
            self._drop_finished()

    def _drop_finished(self) -> None:
        self.active_requests = [r for r in self.active_requests
                                if r.state != LlmRequestState.GENERATION_COMPLETE]

    def start(self, requests: list[LlmRequest]) -> None:
        self.active_requests = list(requests)
        if self.disable_overlap_scheduler:
            self._executor_loop_no_overlap()
        else:
            self._executor_loop()
        logger.info("executor drained %d requests", len(requests))
