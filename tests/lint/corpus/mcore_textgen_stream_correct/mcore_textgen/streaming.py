# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
import logging
import queue
import threading
from typing import Callable, List, Optional

import torch

logger = logging.getLogger(__name__)


class TokenStreamer:
    """Hands finished steps to per-request callbacks off the generation thread."""

    def __init__(self, detokenize: Callable[[List[int]], str], on_text: Callable[[int, str, Optional[float]], None]):
        self._detokenize = detokenize
        self._on_text = on_text
        self._queue: "queue.Queue" = queue.Queue()
        self._thread = threading.Thread(target=self._run, name="mcore-token-streamer", daemon=True)
        self._thread.start()

    def publish(self, request_ids: List[int], tokens: torch.Tensor, log_probs: Optional[torch.Tensor]) -> None:
        self._queue.put((request_ids, tokens, log_probs))

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            request_ids, tokens, log_probs = item
            lps = log_probs.tolist() if log_probs is not None else [None] * len(request_ids)
            for rid, tok, lp in zip(request_ids, tokens.tolist(), lps):
                self._on_text(rid, self._detokenize([tok]), lp)

    def close(self) -> None:
        self._queue.put(None)
        self._thread.join()
