"""Executor loop: schedule, onboard reused prefixes, forward, free finished requests."""

from trtllm_kv.block_pool import KvCacheConfig
from trtllm_kv.kv_cache_manager import KVCacheManager


class PyExecutor:
    def __init__(self, model_engine, scheduler, cfg: KvCacheConfig):
        self.model_engine = model_engine
        self.scheduler = scheduler
        self.kv_cache_manager = KVCacheManager(cfg)

    def _executor_loop(self):
        while not self.scheduler.is_shutdown:
            scheduled = self.scheduler.schedule()
            self.kv_cache_manager.prepare_resources(scheduled.context_requests)
            self.kv_cache_manager.wait_onboarded(
                [r.request_id for r in scheduled.context_requests])
            outputs = self.model_engine.forward(scheduled, self.kv_cache_manager.primary.pool)
            for req in self.scheduler.update(outputs):
                if req.is_finished:
                    self.kv_cache_manager.free_resources(req)
