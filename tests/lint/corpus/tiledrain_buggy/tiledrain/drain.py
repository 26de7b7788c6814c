import logging
import os
import queue
import threading
from typing import Optional

import numpy as np
from numba import cuda

from tiledrain.producer import DrainItem
from tiledrain.settings import MOMENTS, OUT_DTYPE, OUT_PATTERN

logger = logging.getLogger(__name__)


class DrainWorker(threading.Thread):
    def __init__(self, source: "queue.Queue[Optional[DrainItem]]", out_dir: str, max_rows: int):
        super().__init__(name="tiledrain-writer", daemon=True)
        self._source = source
        self._out_dir = out_dir
        self._stream = cuda.stream()
        self._host = cuda.pinned_array((max_rows, MOMENTS), dtype=OUT_DTYPE)
        self.written = 0

    def run(self) -> None:
        os.makedirs(self._out_dir, exist_ok=True)
        while True:
            item = self._source.get()
            if item is None:
                break
            if item.ready is not None:
                item.ready.wait(self._stream)
            view = self._host[: item.rows]
            # expect: KVG001
            item.d_out.copy_to_host(view, stream=self._stream)
            self._stream.synchronize()
            np.save(os.path.join(self._out_dir, OUT_PATTERN.format(seq=item.seq)), view)
            self.written += item.rows
        logger.info("drained %d tile rows into %s", self.written, self._out_dir)
