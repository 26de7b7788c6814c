import logging
import queue
import threading

import numpy as np
from numba import cuda

from .settings import STAGE_QUEUE_DEPTH, StageSettings

logger = logging.getLogger(__name__)


class ExpertStager:
    """Background thread that copies pinned expert weights into device buffers."""

    def __init__(self, settings: StageSettings, host_experts: list[np.ndarray]) -> None:
        self.settings = settings
        self.host_experts = host_experts
        self.load_stream = cuda.stream()
        self.buffers = [cuda.device_array((settings.d_ff, settings.d_model), dtype=np.float32)
                        for _ in range(settings.num_buffers)]
        self.ready = [cuda.event(timing=False) for _ in self.buffers]
        self._requests: "queue.Queue" = queue.Queue(maxsize=STAGE_QUEUE_DEPTH)
        self._done = [threading.Event() for _ in self.buffers]
        self._worker = threading.Thread(target=self._run, name="expert-stager", daemon=True)
        self._worker.start()

    def request(self, expert: int, buf: int, free_event) -> None:
        self._done[buf].clear()
        self._requests.put((expert, buf, free_event))

    def wait_ready(self, buf: int) -> None:
        self._done[buf].wait()

    def _run(self) -> None:
        while True:
            item = self._requests.get()
            if item is None:
                return
            expert, buf, free_event = item
            if free_event is not None:
                free_event.wait(stream=self.load_stream)
            self.buffers[buf].copy_to_device(self.host_experts[expert], stream=self.load_stream)
            self.ready[buf].record(stream=self.load_stream)
            self._done[buf].set()
            logger.debug("staged expert %d into buffer %d", expert, buf)

    def close(self) -> None:
        self._requests.put(None)
        self._worker.join()
