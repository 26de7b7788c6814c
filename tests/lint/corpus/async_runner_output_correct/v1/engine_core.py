import logging
import queue
from concurrent.futures import Future, ThreadPoolExecutor

from v1.gpu_model_runner import GPUModelRunner

logger = logging.getLogger(__name__)


class EngineCore:
    def __init__(self, model_runner: GPUModelRunner, scheduler, output_queue: queue.Queue):
        self.model_runner = model_runner
        self.scheduler = scheduler
        self.output_queue = output_queue
        self.async_output_thread = ThreadPoolExecutor(
            max_workers=1, thread_name_prefix="async_output"
        )
        self.batch_queue: "queue.Queue[tuple[Future, object]]" = queue.Queue(maxsize=2)

    def step_with_batch_queue(self) -> bool:
        if not self.batch_queue.full():
            scheduler_output = self.scheduler.schedule()
            if scheduler_output.total_num_scheduled_tokens > 0:
                async_output = self.model_runner.execute_model(scheduler_output)
                future = self.async_output_thread.submit(async_output.get_output)
                self.batch_queue.put((future, scheduler_output))
                if not self.batch_queue.full():
                    return True
        if self.batch_queue.empty():
            return False
        future, scheduler_output = self.batch_queue.get()
        model_output = future.result()
        engine_outputs = self.scheduler.update_from_output(scheduler_output, model_output)
        if engine_outputs:
            self.output_queue.put_nowait(engine_outputs)
        return True

    def shutdown(self) -> None:
        self.async_output_thread.shutdown(wait=True)
