import logging
from collections import deque
from dataclasses import dataclass, field

import torch

from .dynamic_context import DynamicInferenceContext

logger = logging.getLogger(__name__)


@dataclass
class DynamicInferenceRequest:
    request_id: int
    prompt_tokens: list[int]
    generated_tokens: list[int] = field(default_factory=list)


class DynamicInferenceEngine:

    def __init__(self, controller, context: DynamicInferenceContext):
        self.controller = controller
        self.context = context
        self.requests: dict[int, DynamicInferenceRequest] = {}
        self.waiting: deque[DynamicInferenceRequest] = deque()
        self.step_count = 0

    def add_request(self, request: DynamicInferenceRequest) -> None:
        self.requests[request.request_id] = request
        self.waiting.append(request)

    def _schedule_waiting(self) -> None:
        ctx = self.context
        while self.waiting and ctx.total_request_count < ctx.config.max_requests:
            req = self.waiting.popleft()
            ctx.add_request(req.request_id, len(req.prompt_tokens))

    @torch.inference_mode()
    def step(self) -> list[DynamicInferenceRequest]:
        self._schedule_waiting()
        ctx = self.context
        if ctx.total_request_count == 0:
            return []

        new_tokens = self.controller.generate_output_tokens_dynamic_batch(ctx)
        active_mask = new_tokens != ctx.config.termination_id
        ctx.update_requests(active_mask, new_tokens)

        # finished requests were compacted behind the active ones
        finished_ids = ctx.host_view("request_ids", ctx.active_request_count, ctx.total_request_count).tolist()
        ctx.retire_finished()
        self.step_count += 1

        finished = [self.requests.pop(rid) for rid in finished_ids]
        if finished:
            logger.info("step %d: %d finished, %d active", self.step_count, len(finished),
                        ctx.total_request_count)
        return finished
