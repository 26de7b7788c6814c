"""Executor loop: the forward of iteration N+1 is launched while iteration N's may still run;
requests cancelled by their clients are released at the top of each iteration."""

import torch

from trt_reuse.kv_cache_manager import KvCacheConfig, KVCacheManager


class PyExecutor:
    def __init__(self, model_engine, scheduler, kv_cache_config: KvCacheConfig):
        self.model_engine = model_engine
        self.scheduler = scheduler
        self.execution_stream = torch.cuda.Stream()
        self.kv_cache_manager = KVCacheManager(kv_cache_config, self.execution_stream)
        self.pending_outputs = []

    def _handle_canceled_requests(self) -> None:
        for request in self.scheduler.pop_canceled_requests():
            self.kv_cache_manager.free_resources(request)

    def _executor_loop(self) -> None:
        while True:
            self._handle_canceled_requests()
            scheduled_batch = self.scheduler.schedule_request()
            if scheduled_batch is None:
                break
            with torch.cuda.stream(self.execution_stream):
                self.kv_cache_manager.prepare_resources(scheduled_batch)
                outputs = self.model_engine.forward(scheduled_batch, self.kv_cache_manager.primary)
            self.pending_outputs.append(outputs)
