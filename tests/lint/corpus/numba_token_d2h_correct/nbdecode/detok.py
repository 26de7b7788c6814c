from __future__ import annotations

import logging
import queue
import threading
from typing import Callable, Optional

from .constants import EOS_TOKEN_ID
from .sampler import GreedySampler, PendingTokens

logger = logging.getLogger(__name__)

TokenCallback = Callable[[int, int, bool], None]


class DetokenizerThread(threading.Thread):
    """Consumes sampled batches off the GPU path and hands tokens to request callbacks."""

    def __init__(self, sampler: GreedySampler, on_token: TokenCallback) -> None:
        super().__init__(name="detokenizer", daemon=True)
        self.sampler = sampler
        self.on_token = on_token
        self.inbox: "queue.Queue[Optional[PendingTokens]]" = queue.Queue(maxsize=8)

    def submit(self, pending: PendingTokens) -> None:
        self.inbox.put(pending)

    def close(self) -> None:
        self.inbox.put(None)
        self.join()

    def run(self) -> None:
        while True:
            item = self.inbox.get()
            if item is None:
                break
            try:
                item.done.synchronize()
                token_ids = item.host_ids.tolist()
                for req_id, tok in zip(item.request_ids, token_ids):
                    self.on_token(req_id, tok, tok == EOS_TOKEN_ID)
            except Exception:
                logger.exception("step %d: token delivery failed", item.step)
            finally:
                item.device_ids = None
                self.sampler.free_slots.put(item.slot)
