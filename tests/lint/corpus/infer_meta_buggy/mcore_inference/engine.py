import logging
from typing import Dict, List

import torch

from .dynamic_context import DynamicInferenceContext

logger = logging.getLogger(__name__)


class DynamicInferenceEngine:
    def __init__(self, context: DynamicInferenceContext, max_sequence_length: int):
        self.context = context
        self.max_sequence_length = max_sequence_length
        self.finished: Dict[int, int] = {}
        self.step_count = 0

    def add_request(self, prompt_tokens: List[int]) -> int:
        with torch.cuda.stream(self.context.stream):
            return self.context.add_request(len(prompt_tokens))

    def step(self) -> List[int]:
        """Run bookkeeping for one forward step and return newly finished request ids."""
        with torch.cuda.stream(self.context.stream):
            self.context.update_requests()
            self.context.sync_metadata_to_host()
        lengths = self.context.host_sequence_lengths()
        done = []
        for request_id, length in enumerate(lengths):
            if request_id not in self.finished and length >= self.max_sequence_length:
                self.finished[request_id] = self.step_count
                done.append(request_id)
        self.step_count += 1
        if done:
            logger.info("step %d finished requests %s", self.step_count, done)
        return done

    @torch.inference_mode()
    def run_until_done(self, max_steps: int) -> Dict[int, int]:
        for _ in range(max_steps):
            self.step()
            if len(self.finished) == self.context.total_request_count:
                break
        return self.finished
