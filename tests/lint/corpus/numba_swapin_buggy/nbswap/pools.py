import logging

from numba import cuda

from .constants import KV_DTYPE

logger = logging.getLogger(__name__)


class DeviceBlockPool:
    def __init__(self, num_blocks: int, block_elems: int) -> None:
        self.cache = cuda.device_array((num_blocks, block_elems), dtype=KV_DTYPE)
        self._free: list[int] = list(range(num_blocks))
        self._release_evt: dict[int, object] = {}

    def free(self, blocks: list[int], released) -> None:
        for b in blocks:
            self._release_evt[b] = released
        self._free.extend(blocks)

    def allocate(self, n: int) -> tuple[list[int], list]:
        if n > len(self._free):
            raise RuntimeError(f"need {n} device blocks, {len(self._free)} free")
        blocks, self._free = self._free[:n], self._free[n:]
        events = {id(e): e for b in blocks
                  if (e := self._release_evt.pop(b, None)) is not None}
        return blocks, list(events.values())


class HostBlockPool:
    def __init__(self, num_slots: int, block_elems: int) -> None:
        self.cache = cuda.pinned_array((num_slots, block_elems), dtype=KV_DTYPE)
        self._free: list[int] = list(range(num_slots))

    def take(self, n: int) -> list[int]:
        slots, self._free = self._free[:n], self._free[n:]
        return slots

    def give_back(self, slots: list[int]) -> None:
        self._free.extend(slots)
