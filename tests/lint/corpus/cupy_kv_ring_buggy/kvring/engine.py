import logging
import os

import cupy
import numpy as np

from .config import RingConfig
from .offload import alloc_pinned_block, copy_block_to_host
from .streams import StreamPool

logger = logging.getLogger(__name__)


class KVRing:
    def __init__(self, cfg: RingConfig, device_id: int = 0) -> None:
        self.cfg = cfg
        self.streams = StreamPool(device_id)
        with self.streams.device:
            self.pool = cupy.zeros((cfg.num_slots, *cfg.block_shape), dtype=cfg.dtype)
        self.host = [alloc_pinned_block(cfg.block_shape, cfg.dtype) for _ in range(cfg.num_slots)]
        self.owner: dict[int, int] = {}
        self._cursor = 0
        os.makedirs(cfg.spill_dir, exist_ok=True)

    def append(self, seq_id: int, k: cupy.ndarray, v: cupy.ndarray) -> int:
        slot = self._cursor % self.cfg.num_slots
        if slot in self.owner:
            self.streams.order_d2h_after_compute()
            self._spill(slot)
        with self.streams.compute:
            self.pool[slot, 0] = k
            self.pool[slot, 1] = v
        self.owner[slot] = seq_id
        self._cursor += 1
        return slot

    def _spill(self, slot: int) -> None:
        copy_block_to_host(self.pool[slot], self.host[slot], self.streams.d2h)
        self.streams.d2h.synchronize()
        path = os.path.join(self.cfg.spill_dir, f"seq{self.owner[slot]}_slot{slot}.npy")
        np.save(path, self.host[slot])
        logger.debug("spilled slot %d to %s", slot, path)

    def flush(self) -> None:
        for slot in sorted(self.owner):
            self._spill(slot)
        self.owner.clear()
