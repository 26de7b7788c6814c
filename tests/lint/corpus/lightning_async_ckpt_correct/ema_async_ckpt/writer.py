"""Background thread that serialises staged checkpoints."""
from __future__ import annotations

import logging
import os
import queue
import threading

import torch

from .payload import StagedCheckpoint

log = logging.getLogger(__name__)


class CheckpointWriterThread(threading.Thread):
    def __init__(self, max_pending: int = 1) -> None:
        super().__init__(name="ema-ckpt-writer", daemon=True)
        self._queue: queue.Queue[StagedCheckpoint | None] = queue.Queue(maxsize=max_pending)
        self._error: BaseException | None = None

    def _raise_if_failed(self) -> None:
        if self._error is not None:
            raise RuntimeError("asynchronous checkpoint write failed") from self._error

    def submit(self, item: StagedCheckpoint) -> None:
        self._raise_if_failed()
        self._queue.put(item)

    def wait_until_idle(self) -> None:
        self._queue.join()
        self._raise_if_failed()

    def close(self) -> None:
        self._queue.put(None)
        self.join()
        self._raise_if_failed()

    def run(self) -> None:
        while True:
            item = self._queue.get()
            try:
                if item is None:
                    return
                self._write(item)
            except BaseException as exc:  # surfaced on the training thread
                self._error = exc
            finally:
                self._queue.task_done()

    def _write(self, item: StagedCheckpoint) -> None:
        item.ready.synchronize()
        tmp_path = f"{item.path}.tmp"
        torch.save({"global_step": item.step, "ema_state_dict": item.tensors}, tmp_path)
        os.replace(tmp_path, item.path)
        log.info("saved EMA checkpoint for step %d to %s", item.step, item.path)
