"""Double-buffered host->device streaming of key chunks."""
from typing import Dict

import numpy as np
from numba import cuda

from .params import CHUNK_ROWS, NUM_SLOTS


class ChunkLoader:
    def __init__(self, load_stream, dim: int):
        self.load_stream = load_stream
        self.slots = [cuda.device_array((CHUNK_ROWS, dim), dtype=np.float32) for _ in range(NUM_SLOTS)]
        self._loaded: Dict[int, object] = {}
        self._consumed: Dict[int, object] = {}

    def load(self, chunk_idx: int, host_chunk: np.ndarray) -> None:
        slot = chunk_idx % NUM_SLOTS
        consumed = self._consumed.pop(slot, None)
        if consumed is not None:
            consumed.wait(self.load_stream)
        dst = self.slots[slot][: host_chunk.shape[0]]
        dst.copy_to_device(host_chunk, stream=self.load_stream)
        loaded = cuda.event(timing=False)
        loaded.record(self.load_stream)
        self._loaded[slot] = loaded

    def acquire(self, chunk_idx: int, stream):
        slot = chunk_idx % NUM_SLOTS
        self._loaded.pop(slot).wait(stream)
        return self.slots[slot]

    def release(self, chunk_idx: int, stream) -> None:
        evt = cuda.event(timing=False)
        evt.record(stream)
        self._consumed[chunk_idx % NUM_SLOTS] = evt
