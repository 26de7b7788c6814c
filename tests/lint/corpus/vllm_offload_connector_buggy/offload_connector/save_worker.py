from __future__ import annotations

import logging
import os
import queue
import threading
from dataclasses import dataclass
from typing import Callable, Optional

import torch

logger = logging.getLogger(__name__)


@dataclass
class SaveTask:
    req_id: str
    layer_name: str
    host_tensor: torch.Tensor
    event: torch.cuda.Event
    path: str
    on_done: Optional[Callable[[torch.Tensor], None]] = None


class SaveWorker:
    """Background thread that persists per-layer KV once its D2H copy landed."""

    _SHUTDOWN = object()

    def __init__(self, max_pending: int = 256) -> None:
        self._queue: "queue.Queue[SaveTask | object]" = queue.Queue(maxsize=max_pending)
        self._thread = threading.Thread(target=self._run, name="kv-offload-save", daemon=True)
        self._error: Optional[BaseException] = None
        self._thread.start()

    def submit(self, task: SaveTask) -> None:
        if self._error is not None:
            raise RuntimeError("kv offload save worker failed") from self._error
        self._queue.put(task)

    def wait_all(self) -> None:
        self._queue.join()
        if self._error is not None:
            raise RuntimeError("kv offload save worker failed") from self._error

    def shutdown(self) -> None:
        self._queue.put(self._SHUTDOWN)
        self._thread.join()

    def _run(self) -> None:
        while True:
            task = self._queue.get()
            try:
                if task is self._SHUTDOWN:
                    return
                task.event.synchronize()
                os.makedirs(os.path.dirname(task.path), exist_ok=True)
                with open(task.path, "wb") as f:
                    f.write(memoryview(task.host_tensor.view(torch.uint8).numpy()))
                if task.on_done is not None:
                    task.on_done(task.host_tensor)
            except BaseException as e:  # surfaced on the next submit / wait_all
                logger.exception("failed to save %s/%s", task.req_id, task.layer_name)
                self._error = e
            finally:
                self._queue.task_done()
