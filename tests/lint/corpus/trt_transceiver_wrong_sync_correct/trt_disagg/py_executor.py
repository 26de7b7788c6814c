"""Context-instance executor loop."""

import torch

from trt_disagg.connection import KvConnection
from trt_disagg.kv_cache_transceiver import PyKvCacheTransceiver
from trt_disagg.resource_manager import KvCacheConfig, KVCacheManager


class PyExecutor:
    def __init__(self, model_engine, scheduler, kv_config: KvCacheConfig, gen_host: str, gen_port: int):
        self.model_engine = model_engine
        self.scheduler = scheduler
        self.execution_stream = torch.cuda.Stream()
        self.kv_cache_manager = KVCacheManager(kv_config)
        self.kv_cache_transceiver = PyKvCacheTransceiver(
            self.kv_cache_manager, max_blocks_per_request=512, peer=KvConnection(gen_host, gen_port)
        )

    def _executor_loop(self) -> None:
        while True:
            batch = self.scheduler.schedule_request()
            if batch is None:
                break
            with torch.cuda.stream(self.execution_stream):
                for request in batch.context_requests:
                    self.kv_cache_manager.add_sequence(request.request_id, request.num_blocks)
                self.model_engine.forward(batch, self.kv_cache_manager.pool)
                for request in batch.context_requests:
                    if request.is_context_only:
                        self.kv_cache_transceiver.respond_and_send_async(request)
            for request_id in self.kv_cache_transceiver.check_context_transfer_status():
                self.scheduler.finish_context_transfer(request_id)
