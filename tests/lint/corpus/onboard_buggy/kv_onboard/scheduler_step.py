import logging

import torch

from .manager import OnboardingManager

logger = logging.getLogger(__name__)


class SchedulerStep:

    def __init__(self, model_engine, onboarding: OnboardingManager):
        self.model_engine = model_engine
        self.onboarding = onboarding

    @torch.inference_mode()
    def __call__(self, batch, waiting_queue) -> None:
        block_tables = {r.py_request_id: self.onboarding.wait_ready(r)
                        for r in batch.onboarded_requests}
        block_tables.update({r.py_request_id: r.block_ids
                             for r in batch.resident_requests})
        self.model_engine.forward(batch, self.onboarding.gpu_blocks, block_tables)
        for request in batch.finished_requests:
            self.onboarding.release(block_tables.get(request.py_request_id, []))
        self.onboarding.onboard(batch.next_onboard_requests)
        self.onboarding.prefetch(waiting_queue)
