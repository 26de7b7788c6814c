"""Multi-slot export pipeline."""

import logging
import threading

import numpy as np
from numba import cuda

from nbexport.kernels import launch_normalize
from nbexport.sink import RowStatsSink
from nbexport.streams import StreamSet

logger = logging.getLogger(__name__)


class EmbeddingExporter:
    def __init__(self, rows: int, dim: int, sink: RowStatsSink, num_slots: int = 2):
        self.rows = rows
        self.dim = dim
        self.sink = sink
        self.streams = StreamSet()
        self._d_out = [cuda.device_array((rows, dim), dtype=np.float32) for _ in range(num_slots)]
        self._h_out = [cuda.pinned_array((rows, dim), dtype=np.float32) for _ in range(num_slots)]
        self._slot_free = [threading.Event() for _ in range(num_slots)]
        for free in self._slot_free:
            free.set()
        self._next_slot = 0

    def host_slot(self, slot: int) -> np.ndarray:
        return self._h_out[slot]

    def release_slot(self, slot: int) -> None:
        self._slot_free[slot].set()

    def _acquire_slot(self) -> int:
        slot = self._next_slot
        self._next_slot = (slot + 1) % len(self._d_out)
        self._slot_free[slot].wait()
        self._slot_free[slot].clear()
        return slot

    def submit(self, batch_id: int, d_src) -> None:
        if d_src.shape != (self.rows, self.dim):
            raise ValueError(f"expected {(self.rows, self.dim)}, got {d_src.shape}")
        slot = self._acquire_slot()
        launch_normalize(d_src, self._d_out[slot], self.streams.compute)

        ready = cuda.event(timing=False)
        ready.record(stream=self.streams.compute)
        ready.wait(stream=self.streams.transfer)
        self._d_out[slot].copy_to_host(self._h_out[slot], stream=self.streams.transfer)
        self.streams.transfer.add_callback(self.sink.on_ready, (batch_id, slot, self))
        logger.debug("submitted batch %d in slot %d", batch_id, slot)

    def drain(self) -> None:
        self.streams.synchronize()
        for free in self._slot_free:
            free.wait()
