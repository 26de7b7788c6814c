import ctypes
import threading
from typing import List

from cuda.bindings import driver

from kv_batch_xfer.cuda_utils import check


class PinnedHostSlab:
    """One cuMemHostAlloc'd slab split into fixed-size page slots."""

    def __init__(self, slot_bytes: int, num_slots: int):
        self.slot_bytes = slot_bytes
        err, self.base = driver.cuMemHostAlloc(slot_bytes * num_slots, driver.CU_MEMHOSTALLOC_PORTABLE)
        check(err)
        self._free: List[int] = list(range(num_slots))
        self._lock = threading.Lock()

    def take(self, count: int) -> List[int]:
        with self._lock:
            if len(self._free) < count:
                raise MemoryError(f"need {count} host slots, {len(self._free)} free")
            slots, self._free = self._free[:count], self._free[count:]
        return slots

    def give_back(self, slots: List[int]) -> None:
        with self._lock:
            self._free.extend(slots)

    def address(self, slot: int) -> int:
        return int(self.base) + slot * self.slot_bytes

    def read(self, slot: int) -> bytes:
        return ctypes.string_at(self.address(slot), self.slot_bytes)
