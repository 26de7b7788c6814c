"""The executor loop: schedule, prepare KV resources, run the engine, retire requests."""


class PyExecutor:
    def __init__(self, model_engine, kv_cache_manager, scheduler):
        self.model_engine = model_engine
        self.kv_cache_manager = kv_cache_manager
        self.scheduler = scheduler

    def _executor_loop(self):
        while True:
            scheduled = self.scheduler.schedule_request()
            if scheduled is None:
                break
            block_tables = self.kv_cache_manager.prepare_resources(scheduled.generation_requests)
            self.model_engine.forward(scheduled, block_tables, self.kv_cache_manager.primary.base)
            for req in scheduled.finished_requests:
                self.kv_cache_manager.free_resources(req)
