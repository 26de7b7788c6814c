"""Background thread that persists staged state dicts."""
import logging
import os
import queue
import threading
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Optional

import torch

from .staging import StagedStateDict

logger = logging.getLogger(__name__)


@dataclass
class WriteRequest:
    staged: StagedStateDict
    path: str
    future: Future = field(default_factory=Future)


class BackgroundCheckpointWriter(threading.Thread):

    def __init__(self, max_pending: int = 1):
        super().__init__(name="async-ckpt-writer", daemon=True)
        self._queue: "queue.Queue[Optional[WriteRequest]]" = queue.Queue(maxsize=max_pending)

    def submit(self, staged: StagedStateDict, path: str) -> Future:
        request = WriteRequest(staged=staged, path=path)
        self._queue.put(request)
        return request.future

    def close(self) -> None:
        self._queue.put(None)
        self.join()

    def run(self) -> None:
        while True:
            request = self._queue.get()
            if request is None:
                break
            try:
                self._write(request)
                request.future.set_result(request.path)
            except BaseException as exc:  # surfaced to the trainer through the future
                logger.exception("checkpoint write to %s failed", request.path)
                request.future.set_exception(exc)

    def _write(self, request: WriteRequest) -> None:
        tmp_path = f"{request.path}.tmp"
        os.makedirs(os.path.dirname(request.path) or ".", exist_ok=True)
        # expect: KVG003
        torch.save(request.staged.state_dict, tmp_path)
        os.replace(tmp_path, request.path)
        logger.info("wrote step %d checkpoint (%.1f MiB)", request.staged.step, request.staged.nbytes / 2**20)
