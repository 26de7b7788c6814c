import logging
import queue
import threading

import numpy as np

logger = logging.getLogger(__name__)


class EgressWriter:
    """Consumes landed beam blocks; hands buffers back once written."""

    def __init__(self, out_path: str, free_buffers: "queue.Queue[np.ndarray]"):
        self._path = out_path
        self._free = free_buffers
        self._ready: "queue.Queue[tuple[int, np.ndarray] | None]" = \
            queue.Queue()
        self._thread = threading.Thread(target=self._run,
                                        name="beam-egress",
                                        daemon=True)
        self._thread.start()

    def on_landed(self, stream, status, arg) -> None:
        # stream callback: no CUDA calls allowed here
        seq, host_block = arg
        if status != 0:
            logger.error("egress copy %d failed with status %s", seq, status)
        self._ready.put((seq, host_block))

    def close(self) -> None:
        self._ready.put(None)
        self._thread.join()

    def _run(self) -> None:
        with open(self._path, "ab") as fh:
            while (item := self._ready.get()) is not None:
                seq, host_block = item
                host_block.tofile(fh)
                self._free.put(host_block)
