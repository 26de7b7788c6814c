import logging
from dataclasses import dataclass

import numpy as np
from numba import cuda

from .constants import ADAPTER_DTYPE, NUM_DEVICE_SLOTS, THREADS_PER_BLOCK
from .prefetcher import AdapterPrefetcher
from .slots import DeviceSlot, SlotTable, mark

logger = logging.getLogger(__name__)


@cuda.jit
def lora_apply(x, packed, out, rank):
    row = cuda.grid(1)
    if row >= x.shape[0]:
        return
    hidden = x.shape[1]
    for r in range(rank):
        acc = 0.0
        for k in range(hidden):
            acc += x[row, k] * packed[0, r, k]
        for j in range(hidden):
            out[row, j] += acc * packed[1, r, j]


@cuda.jit
def row_sq_norm(out, norms):
    row = cuda.grid(1)
    if row >= out.shape[0]:
        return
    acc = 0.0
    for j in range(out.shape[1]):
        acc += out[row, j] * out[row, j]
    norms[row] = acc


@dataclass(frozen=True)
class LoraConfig:
    hidden_size: int
    max_rank: int
    max_rows: int
    rank: int
    device_id: int = 0


class LoraLayerRunner:

    def __init__(self, cfg: LoraConfig, host_store: dict[int, np.ndarray]):
        cuda.select_device(cfg.device_id)
        self.cfg = cfg
        self.compute = cuda.stream()
        self.table = SlotTable(NUM_DEVICE_SLOTS, (2, cfg.max_rank, cfg.hidden_size), ADAPTER_DTYPE)
        self.prefetcher = AdapterPrefetcher(cfg.device_id)
        self._host_store = host_store
        self._d_norm = cuda.device_array(cfg.max_rows, dtype=ADAPTER_DTYPE)
        self._h_norm = cuda.pinned_array(cfg.max_rows, dtype=ADAPTER_DTYPE)

    def _ensure_resident(self, adapter_ids: set[int]) -> dict[int, DeviceSlot]:
        if len(adapter_ids) > NUM_DEVICE_SLOTS:
            raise ValueError("too many distinct adapters in one batch")
        resident, pending = {}, {}
        for aid in adapter_ids:
            slot = self.table.lookup(aid)
            if slot is None:
                slot = self.table.claim(aid)
                pending[aid] = self.prefetcher.submit(slot, self._host_store[aid])
            resident[aid] = slot
        for fut in pending.values():
            fut.result().wait(stream=self.compute)
        return resident

    def forward(self, d_x, d_out, adapter_ids: list[int], row_ranges: list[tuple[int, int]]) -> None:
        resident = self._ensure_resident(set(adapter_ids))
        for aid, (lo, hi) in zip(adapter_ids, row_ranges):
            slot = resident[aid]
            blocks = (hi - lo + THREADS_PER_BLOCK - 1) // THREADS_PER_BLOCK
            slot.released = mark(self.compute)
            lora_apply[blocks, THREADS_PER_BLOCK, self.compute](
                d_x[lo:hi], slot.data, d_out[lo:hi], self.cfg.rank
            )

    def output_norm(self, d_out, rows: int) -> float:
        blocks = (rows + THREADS_PER_BLOCK - 1) // THREADS_PER_BLOCK
        row_sq_norm[blocks, THREADS_PER_BLOCK, self.compute](d_out[:rows], self._d_norm)
        self._d_norm.copy_to_host(self._h_norm, stream=self.compute)
        self.compute.synchronize()
        return float(np.sqrt(self._h_norm[:rows].sum()))
