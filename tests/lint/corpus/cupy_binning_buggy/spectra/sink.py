import logging
import queue
import threading

import numpy as np

logger = logging.getLogger(__name__)


class HistogramSink:
    """Writes landed histogram snapshots to disk from a background thread."""

    def __init__(self, path: str):
        self._path = path
        self._queue: "queue.Queue[tuple[int, np.ndarray] | None]" = \
            queue.Queue()
        self._thread = threading.Thread(target=self._run,
                                        name="histogram-sink",
                                        daemon=True)
        self._thread.start()

    def put(self, seq: int, counts: np.ndarray) -> None:
        self._queue.put((seq, counts))

    def close(self) -> None:
        self._queue.put(None)
        self._thread.join()

    def _run(self) -> None:
        with open(self._path, "ab") as fh:
            while (item := self._queue.get()) is not None:
                seq, counts = item
                fh.write(seq.to_bytes(8, "little"))
                fh.write(counts.tobytes())
                logger.debug("snapshot %d written", seq)
