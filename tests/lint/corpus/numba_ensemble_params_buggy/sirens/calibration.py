"""Re-estimates the rate table from incoming case counts on a thread of its own and
publishes each new table on a queue; the simulation picks it up between steps."""

import queue
import threading
from typing import Iterable, Optional

import numpy as np


class Calibrator:
    def __init__(self, num_regions: int, prior_beta: float = 0.3, prior_gamma: float = 0.1):
        self.table = np.empty((num_regions, 2), dtype=np.float32)
        self.table[:, 0] = prior_beta
        self.table[:, 1] = prior_gamma
        self.updates: "queue.Queue[np.ndarray]" = queue.Queue(maxsize=1)
        self._thread: Optional[threading.Thread] = None

    def start(self, case_feed: Iterable[np.ndarray]) -> None:
        self._thread = threading.Thread(target=self._run, args=(case_feed,), name="calibrator",
                                        daemon=True)
        self._thread.start()

    def _run(self, case_feed: Iterable[np.ndarray]) -> None:
        prev = None
        for cases in case_feed:
            if prev is not None:
                growth = np.log(np.maximum(cases, 1.0) / np.maximum(prev, 1.0))
                self.table[:, 0] = np.clip(self.table[:, 1] + growth, 0.01, 2.0)
                try:
                    self.updates.put_nowait(self.table.copy())
                except queue.Full:
                    pass
            prev = cases

    def poll(self) -> Optional[np.ndarray]:
        try:
            return self.updates.get_nowait()
        except queue.Empty:
            return None
