from __future__ import annotations

import logging
import queue
import threading
from concurrent.futures import Future
from typing import Dict, Mapping, Tuple

import numpy as np

from .engine import TrtRunner

logger = logging.getLogger(__name__)

Request = Tuple[Mapping[str, np.ndarray], "Future[Dict[str, np.ndarray]]"]


class InferenceWorker:
    """Serialises requests onto a single TrtRunner from a worker thread."""

    def __init__(self, engine_path: str) -> None:
        self._engine_path = engine_path
        self._requests: "queue.Queue[Request | None]" = queue.Queue()
        self._thread = threading.Thread(target=self._loop, name="trt-worker", daemon=True)
        self._thread.start()

    def submit(self, feed: Mapping[str, np.ndarray]) -> "Future[Dict[str, np.ndarray]]":
        fut: "Future[Dict[str, np.ndarray]]" = Future()
        self._requests.put((feed, fut))
        return fut

    def shutdown(self) -> None:
        self._requests.put(None)
        self._thread.join()

    def _loop(self) -> None:
        runner = TrtRunner(self._engine_path)
        try:
            while (item := self._requests.get()) is not None:
                feed, fut = item
                if not fut.set_running_or_notify_cancel():
                    continue
                try:
                    fut.set_result(runner.infer(feed))
                except Exception as exc:  # surfaced to the caller
                    logger.exception("inference failed")
                    fut.set_exception(exc)
        finally:
            runner.close()
