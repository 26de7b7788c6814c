from __future__ import annotations

import logging
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Optional, Protocol

from v1_runner.gpu_model_runner import GPUModelRunner, SchedulerOutput
from v1_runner.outputs import ModelRunnerOutput

logger = logging.getLogger(__name__)


class Scheduler(Protocol):
    def schedule(self) -> Optional[SchedulerOutput]: ...

    def update_from_output(self, sched: SchedulerOutput, out: ModelRunnerOutput) -> None: ...


class EngineCore:
    def __init__(self, scheduler: Scheduler, model_runner: GPUModelRunner, max_concurrent_batches: int = 2):
        self.scheduler = scheduler
        self.model_runner = model_runner
        self.batch_queue_size = max_concurrent_batches
        self.batch_queue: deque[tuple[Future[ModelRunnerOutput], SchedulerOutput]] = deque()
        self.output_executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="async_output")

    def step_with_batch_queue(self) -> bool:
        if len(self.batch_queue) < self.batch_queue_size:
            scheduler_output = self.scheduler.schedule()
            if scheduler_output is not None:
                async_output = self.model_runner.execute_model(scheduler_output)
                future = self.output_executor.submit(async_output.get_output)
                self.batch_queue.appendleft((future, scheduler_output))
                if len(self.batch_queue) < self.batch_queue_size:
                    return True
        if not self.batch_queue:
            return False
        future, scheduler_output = self.batch_queue.pop()
        self.scheduler.update_from_output(scheduler_output, future.result())
        return True

    def shutdown(self) -> None:
        self.output_executor.shutdown(wait=True)
