# SPDX-License-Identifier: Apache-2.0
# Standard
from typing import List
import ctypes
import threading

# Third Party
from cuda.bindings import driver

# First Party
from kvbatch.cuda_utils import check_cuda_errors


class PinnedHostPool:
    """Fixed-size page-locked slots, one KV block each."""

    def __init__(self, num_slots: int, slot_bytes: int):
        self.slot_bytes = slot_bytes
        self._base = check_cuda_errors(driver.cuMemHostAlloc(num_slots * slot_bytes, 0))
        self._free: List[int] = list(range(num_slots))
        self._lock = threading.Lock()

    def address(self, slot: int) -> int:
        return int(self._base) + slot * self.slot_bytes

    def allocate(self, n: int) -> List[int]:
        with self._lock:
            if len(self._free) < n:
                raise MemoryError(f"PinnedHostPool: {n} slots requested, {len(self._free)} free")
            slots, self._free = self._free[:n], self._free[n:]
        return slots

    def free(self, slots: List[int]) -> None:
        with self._lock:
            self._free.extend(slots)

    def read(self, slot: int) -> bytes:
        return bytes((ctypes.c_char * self.slot_bytes).from_address(self.address(slot)))
