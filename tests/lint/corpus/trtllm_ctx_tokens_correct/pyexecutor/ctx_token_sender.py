import logging
import queue
import threading
import time
from dataclasses import dataclass
from typing import Callable

import torch

from pyexecutor.llm_request import LlmRequest

logger = logging.getLogger(__name__)

FIRST_TOKEN_POLL_INTERVAL_S = 0.0002


@dataclass
class FirstTokenBatch:
    requests: list[LlmRequest]
    batch_indices: list[int]
    tokens_host: torch.Tensor
    ready_event: torch.cuda.Event


class CtxFirstTokenSender:
    """Disaggregated serving: pushes the first generated token of context-only
    requests to the generation server from a dedicated thread."""

    def __init__(self, send_fn: Callable[[int, int], None], ready_timeout_s: float = 0.05):
        self._send_fn = send_fn
        self._ready_timeout_s = ready_timeout_s
        self._queue: "queue.Queue[FirstTokenBatch | None]" = queue.Queue()
        self._thread = threading.Thread(target=self._run, name="ctx-first-token", daemon=True)
        self._thread.start()

    def submit(self, batch: FirstTokenBatch) -> None:
        self._queue.put(batch)

    def _wait_ready(self, batch: FirstTokenBatch) -> None:
        deadline = time.monotonic() + self._ready_timeout_s
        while not batch.ready_event.query():
            if time.monotonic() > deadline:
                logger.warning("first-token copy slow for %d requests", len(batch.requests))
                batch.ready_event.synchronize()
                return
            time.sleep(FIRST_TOKEN_POLL_INTERVAL_S)

    def _run(self) -> None:
        while True:
            batch = self._queue.get()
            if batch is None:
                return
            self._wait_ready(batch)
            tokens = batch.tokens_host[batch.batch_indices].tolist()
            for request, token in zip(batch.requests, tokens):
                self._send_fn(request.py_request_id, token)

    def shutdown(self) -> None:
        self._queue.put(None)
        self._thread.join()
