"""The engine core's batch queue: step N+1 is scheduled while step N's output resolves on the
output thread."""

import queue
from concurrent.futures import ThreadPoolExecutor

from async_runner.outputs import AsyncModelRunnerOutput


class EngineCore:
    def __init__(self, model_runner, scheduler):
        self.model_runner = model_runner
        self.scheduler = scheduler
        self.batch_queue = queue.Queue(maxsize=2)
        self.output_thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="output")

    @staticmethod
    def _resolve(model_output):
        if isinstance(model_output, AsyncModelRunnerOutput):
            return model_output.get_output()
        return model_output

    def step_with_batch_queue(self):
        if not self.batch_queue.full():
            scheduler_output = self.scheduler.schedule()
            if scheduler_output is not None:
                model_output = self.model_runner.execute_model(scheduler_output)
                future = self.output_thread.submit(self._resolve, model_output)
                self.batch_queue.put((scheduler_output, future))
                return None
        if self.batch_queue.empty():
            return None
        scheduler_output, future = self.batch_queue.get()
        model_output = future.result()
        return self.scheduler.update_from_output(scheduler_output, model_output)
