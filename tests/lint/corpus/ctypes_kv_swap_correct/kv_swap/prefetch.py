import logging
import queue
import threading
from typing import Callable

logger = logging.getLogger(__name__)


class PrefetchWorker:
    """Swaps requests back in ahead of time on a background thread."""

    def __init__(self, prefetch_one: Callable[[int], None], depth: int):
        self._prefetch_one = prefetch_one
        self._queue: "queue.Queue[int | None]" = queue.Queue(maxsize=depth)
        self._thread = threading.Thread(target=self._run,
                                        name="kv-swap-prefetch",
                                        daemon=True)
        self._thread.start()

    def submit(self, request_id: int) -> None:
        try:
            self._queue.put_nowait(request_id)
        except queue.Full:
            logger.debug("prefetch queue full, dropping %d", request_id)

    def drain(self) -> None:
        self._queue.join()

    def close(self) -> None:
        self._queue.put(None)
        self._thread.join()

    def _run(self) -> None:
        while True:
            request_id = self._queue.get()
            try:
                if request_id is None:
                    return
                self._prefetch_one(request_id)
            except Exception:
                logger.exception("prefetch of %s failed", request_id)
            finally:
                self._queue.task_done()
