"""The overlap executor loop: iteration N+1 is scheduled and its resources prepared while
iteration N's forward is still queued on the runtime stream; requests found finished in N's
results release their blocks right away."""

from trt_kv.cuda_utils import create_nonblocking_stream
from trt_kv.kv_cache_manager import KVCacheManager


class PyExecutor:
    def __init__(self, engine_context, scheduler, num_primary: int, num_secondary: int, block_bytes: int):
        self.engine_context = engine_context
        self.scheduler = scheduler
        self.runtime_stream = create_nonblocking_stream()
        self.kv_cache_manager = KVCacheManager(num_primary, num_secondary, block_bytes, self.runtime_stream)
        self.previous_batch = None

    def executor_loop_overlap(self) -> None:
        while True:
            scheduled_batch = self.scheduler.schedule_request()
            if scheduled_batch is None:
                break
            self.kv_cache_manager.prepare_resources(scheduled_batch)
            self.engine_context.execute_async_v3(self.runtime_stream)
            if self.previous_batch is not None:
                self._process_previous_batch(self.previous_batch)
            self.previous_batch = scheduled_batch

    def _process_previous_batch(self, batch) -> None:
        for req in batch.finished_requests():
            self.kv_cache_manager.free_resources(req)
