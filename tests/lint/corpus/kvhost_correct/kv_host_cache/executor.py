import logging
import queue
import threading
from typing import Optional

import torch

from .resource_manager import KVCacheManager

logger = logging.getLogger("tensorrt_llm")


class PyExecutor:

    def __init__(self, model_engine, kv_cache_manager: KVCacheManager,
                 request_queue: "queue.Queue"):
        self.model_engine = model_engine
        self.kv_cache_manager = kv_cache_manager
        self.request_queue = request_queue
        self.is_shutdown = False
        self.worker_thread = threading.Thread(target=self._executor_loop,
                                              name="py_executor", daemon=True)

    def start(self) -> None:
        self.worker_thread.start()

    def _fetch_scheduled_batch(self) -> Optional[object]:
        try:
            return self.request_queue.get(timeout=0.01)
        except queue.Empty:
            return None

    @torch.inference_mode()
    def _executor_loop(self) -> None:
        torch.cuda.set_device(self.kv_cache_manager.device)
        while not self.is_shutdown:
            scheduled_batch = self._fetch_scheduled_batch()
            if scheduled_batch is None:
                continue
            for request in scheduled_batch.paused_requests:
                self.kv_cache_manager.offload_request(request)
            self.kv_cache_manager.prepare_resources(scheduled_batch)
            self._forward_step(scheduled_batch)
            self.kv_cache_manager.update_resources(scheduled_batch)

    def _forward_step(self, scheduled_batch) -> None:
        block_tables = [self.kv_cache_manager.get_block_ids(r.py_request_id)
                        for r in scheduled_batch.all_requests()]
        outputs = self.model_engine.forward(scheduled_batch,
                                            kv_cache=self.kv_cache_manager.kv_pool,
                                            block_tables=block_tables)
        scheduled_batch.outputs = outputs
