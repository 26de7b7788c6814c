import logging

import torch

from .transceiver import CacheSender

logger = logging.getLogger(__name__)


class ContextOnlyExecutor:
    """Context-phase executor: run the prefill forward, then ship finished KV caches."""

    def __init__(self, model_engine, kv_cache_manager, sender: CacheSender):
        self.model_engine = model_engine
        self.kv_cache_manager = kv_cache_manager
        self.sender = sender
        self.stream = torch.cuda.Stream()

    def step(self, scheduled_batch) -> int:
        sent = 0
        with torch.cuda.stream(self.stream):
            self.model_engine.forward(scheduled_batch, self.kv_cache_manager)
            for request in scheduled_batch.context_requests:
                if request.is_last_context_chunk:
                    self.sender.respond_and_send_async(request, self.kv_cache_manager)
                    sent += 1
        logger.debug("queued %d context caches", sent)
        return sent
