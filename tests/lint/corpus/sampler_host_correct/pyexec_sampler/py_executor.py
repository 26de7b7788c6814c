import logging
import threading

import torch

from .sampler import TorchSampler

logger = logging.getLogger(__name__)


class PyExecutor:
    def __init__(self, model_engine, sampler: TorchSampler, scheduler):
        self.model_engine = model_engine
        self.sampler = sampler
        self.scheduler = scheduler
        self.execution_stream = torch.cuda.Stream()
        self.is_shutdown = False
        self.iter_counter = 0
        self._worker = threading.Thread(target=self._executor_loop, daemon=True)

    def start_worker(self) -> None:
        self._worker.start()

    def shutdown(self) -> None:
        self.is_shutdown = True
        self._worker.join()

    def _executor_loop(self) -> None:
        while not self.is_shutdown:
            scheduled_batch = self.scheduler.schedule_request()
            if scheduled_batch is None or scheduled_batch.batch_size == 0:
                continue
            with torch.cuda.stream(self.execution_stream):
                outputs = self.model_engine.forward(scheduled_batch)
                sample_state = self.sampler.sample_async(scheduled_batch, outputs)
            self.sampler.update_requests(sample_state)
            self.scheduler.handle_responses(scheduled_batch)
            self.iter_counter += 1
        logger.info("executor loop stopped after %d iterations", self.iter_counter)
