import logging
import queue
from typing import Dict, Tuple

import numpy as np
from numba import cuda

from .config import StreamingConfig
from .kernels import tile_matvec
from .pinned import PinnedTileStore, upload_tile

logger = logging.getLogger(__name__)


class TiledMatVec:
    def __init__(self, store: PinnedTileStore, config: StreamingConfig):
        self.store = store
        self.config = config
        self.compute = cuda.stream()
        self.load = cuda.stream()
        shape = (config.tile_rows, store.cols)
        self.slots = [cuda.device_array(shape, dtype=store.dtype) for _ in range(config.num_slots)]
        self.loaded = [cuda.event(timing=False) for _ in self.slots]
        self.released = [cuda.event(timing=False) for _ in self.slots]
        self._done: "queue.Queue[Tuple[int, object]]" = queue.Queue()
        self._pending: Dict[int, np.ndarray] = {}

    def _on_complete(self, stream, status, request_id):
        self._done.put((request_id, status))

    def submit(self, request_id: int, x_host: np.ndarray) -> None:
        cfg = self.config
        d_x = cuda.to_device(x_host.astype(np.float32), stream=self.compute)
        d_out = cuda.device_array(self.store.num_rows, dtype=np.float32, stream=self.compute)
        host_out = cuda.pinned_array(self.store.num_rows, dtype=np.float32)

        for i, (row0, tile) in enumerate(self.store.tiles):
            slot = i % cfg.num_slots
            self.released[slot].wait(self.load)
            rows = upload_tile(tile, self.slots[slot], self.load)
            self.loaded[slot].record(self.load)

            self.loaded[slot].wait(self.compute)
            tile_matvec[cfg.blocks_for(rows), cfg.threads_per_block, self.compute](
                self.slots[slot], rows, d_x, d_out, row0
            )
            self.released[slot].record(self.compute)

        d_out.copy_to_host(host_out, stream=self.compute)
        self._pending[request_id] = host_out
        self.compute.add_callback(self._on_complete, request_id)

    def collect(self, timeout: float = 30.0) -> Tuple[int, np.ndarray]:
        request_id, status = self._done.get(timeout=timeout)
        host_out = self._pending.pop(request_id)
        if status is not None and int(status) != 0:
            raise RuntimeError(f"matvec {request_id} failed: {status}")
        logger.debug("request %d norm=%.4f", request_id, float(np.linalg.norm(host_out)))
        return request_id, host_out
