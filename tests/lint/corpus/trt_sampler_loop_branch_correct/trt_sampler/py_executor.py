"""Executor loops: the overlap loop samples step N while the host updates step N-1;
the plain loop updates each step right after sampling it."""

import threading
from dataclasses import dataclass

from trt_sampler.sampler import TorchSampler
from trt_sampler.stop_criteria import StopCriteria


@dataclass
class ExecutorConfig:
    eos_token_id: int
    disable_overlap_scheduler: bool = False


class PyExecutor:
    def __init__(self, model_engine, scheduler, config: ExecutorConfig):
        self.model_engine = model_engine
        self.scheduler = scheduler
        self.config = config
        self.sampler = TorchSampler(StopCriteria(config.eos_token_id, []))
        self.worker_thread = None

    def start_worker(self):
        if self.config.disable_overlap_scheduler:
            target = self._executor_loop
        else:
            target = self._executor_loop_overlap
        self.worker_thread = threading.Thread(target=target, daemon=True)
        self.worker_thread.start()

    def _executor_loop(self):
        while not self.scheduler.is_shutdown:
            batch = self.scheduler.schedule()
            logits = self.model_engine.forward(batch)
            state = self.sampler.sample_async(batch.requests, logits)
            self.scheduler.finish(self.sampler.update_requests(state))

    def _executor_loop_overlap(self):
        previous = None
        while not self.scheduler.is_shutdown:
            batch = self.scheduler.schedule()
            logits = self.model_engine.forward(batch)
            state = self.sampler.sample_async(batch.requests, logits)
            if previous is not None:
                self.scheduler.finish(self.sampler.update_requests(previous))
            previous = state
