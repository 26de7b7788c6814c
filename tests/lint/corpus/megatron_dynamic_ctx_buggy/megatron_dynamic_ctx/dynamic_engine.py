"""One step of the dynamic-batching loop: forward, sample, update metadata, retire finished requests."""
import logging
from collections import deque
from typing import Deque, List

import torch

from .dynamic_context import DynamicInferenceContext
from .request_book import InferenceRequest, RequestBook

logger = logging.getLogger(__name__)


class DynamicInferenceEngine:

    def __init__(self, controller, context: DynamicInferenceContext, termination_id: int):
        self.controller = controller
        self.context = context
        self.termination_id = termination_id
        self.book = RequestBook()
        self.waiting: Deque[InferenceRequest] = deque()
        self._max_output_lengths = torch.zeros(context.max_requests, dtype=torch.int64, device="cuda")

    def add_request(self, request: InferenceRequest) -> None:
        self.waiting.append(request)

    def _schedule_waiting(self) -> None:
        while self.waiting and self.context.total_request_count < self.context.max_requests:
            request = self.waiting.popleft()
            self._max_output_lengths[self.context.total_request_count] = request.num_tokens_to_generate
            self.context.add_request(request.request_id, len(request.prompt_tokens))
            self.book.admit(request)

    @torch.inference_mode()
    def step(self) -> List[int]:
        self._schedule_waiting()
        ctx = self.context
        n = ctx.total_request_count
        if n == 0:
            return []
        logits = self.controller.forward(ctx)
        new_tokens = self.controller.sample(logits[:n])
        active_mask = ctx.update_requests(new_tokens, self.termination_id, self._max_output_lengths[:n])
        active_count = int(active_mask.sum().item())
        host_metadata = ctx.copy_metadata_to_host()
        retired = self.book.apply_step(host_metadata)
        if active_count < n:
            self._max_output_lengths[:active_count] = self._max_output_lengths[:n][active_mask]
            ctx.compact(active_mask, active_count)
        logger.debug("step: %d active, %d retired, %d waiting", active_count, len(retired), len(self.waiting))
        return retired
