import logging
from dataclasses import dataclass
from typing import Callable, Optional

import torch

from pyexecutor.ctx_token_sender import CtxFirstTokenSender, FirstTokenBatch
from pyexecutor.llm_request import LlmRequestState, ScheduledRequests
from pyexecutor.sampler import SampleState, TorchSampler

logger = logging.getLogger(__name__)


@dataclass
class BatchState:
    sample_state: SampleState
    iter_start_time: float = 0.0


class PyExecutor:
    def __init__(self, model_engine, scheduler, sampler: TorchSampler,
                 ctx_token_sender: Optional[CtxFirstTokenSender] = None):
        self.model_engine = model_engine
        self.scheduler = scheduler
        self.sampler = sampler
        self.ctx_token_sender = ctx_token_sender
        self.previous_batch: Optional[BatchState] = None
        self.is_shutdown = False

    def _forward_step(self, scheduled: ScheduledRequests,
                      new_tensors_device: Optional[torch.Tensor]) -> dict[str, torch.Tensor]:
        return self.model_engine.forward(scheduled, new_tensors_device)

    def _send_first_tokens(self, state: SampleState) -> None:
        scheduled = state.scheduled_requests
        all_requests = scheduled.all_requests()
        ctx_only = scheduled.context_only_requests
        if not ctx_only or self.ctx_token_sender is None:
            return
        self.ctx_token_sender.submit(FirstTokenBatch(
            requests=ctx_only,
            batch_indices=[all_requests.index(r) for r in ctx_only],
            tokens_host=state.host.new_tokens,
            ready_event=state.sampler_event,
        ))

    def _process_previous_batch(self) -> None:
        self.sampler.update_requests(self.previous_batch.sample_state)
        for request in self.previous_batch.sample_state.scheduled_requests.all_requests():
            if request.state == LlmRequestState.GENERATION_COMPLETE:
                self.scheduler.terminate_request(request)

    def _executor_loop_overlap(self) -> None:
        with torch.cuda.stream(torch.cuda.Stream()):
            while not self.is_shutdown:
                scheduled = self.scheduler.schedule_request()
                if scheduled is None:
                    break
                prev_device = (self.previous_batch.sample_state.device.new_tokens
                               if self.previous_batch is not None else None)
                outputs = self._forward_step(scheduled, prev_device)
                sample_state = self.sampler.sample_async(scheduled, outputs)
                self._send_first_tokens(sample_state)
                if self.previous_batch is not None:
                    self._process_previous_batch()
                self.previous_batch = BatchState(sample_state=sample_state)
        if self.ctx_token_sender is not None:
            self.ctx_token_sender.shutdown()
