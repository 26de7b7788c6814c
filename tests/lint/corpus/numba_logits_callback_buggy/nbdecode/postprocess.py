import logging
import queue

import numpy as np

logger = logging.getLogger(__name__)


class TokenSink:
    """Receives finished probability rows from CUDA stream callbacks."""

    def __init__(self) -> None:
        self.out: "queue.Queue[list[int]]" = queue.Queue()

    def on_probs_ready(self, stream, status, host_probs: np.ndarray) -> None:
        if status != 0:
            logger.error("stream %s reported status %d", stream, status)
            return
        # expect: KVG003
        tokens = np.argmax(host_probs, axis=1).tolist()
        self.out.put(tokens)
