import logging
from collections import OrderedDict
from typing import Dict, Iterable, Sequence

import cupy
import numpy

from slabswap._consts import DEFAULT_DECAY, SLAB_DTYPE, SLAB_SHAPE
from slabswap.pinned import HostSlabPool
from slabswap.streams import StreamSet
from slabswap.swapper import SlabSwapper

logger = logging.getLogger(__name__)

_decay_update = cupy.ElementwiseKernel(
    "T delta, float32 decay",
    "T slab",
    "slab = (T)((float)slab * decay + (float)delta)",
    "slabswap_decay_update",
)


class SlabEngine:
    def __init__(self, num_slots: int, host_capacity: int, device_id: int = 0, verify: bool = False):
        with cupy.cuda.Device(device_id):
            self.slabs = cupy.zeros((num_slots,) + SLAB_SHAPE, dtype=SLAB_DTYPE)
        self.num_slots = num_slots
        self.streams = StreamSet.create(device_id)
        pool = HostSlabPool(host_capacity, SLAB_SHAPE, SLAB_DTYPE)
        self.swapper = SlabSwapper(self.slabs, self.streams, pool, verify=verify)
        self.free_slots = list(range(num_slots))
        self.resident: "OrderedDict[str, int]" = OrderedDict()

    def _take_slot(self) -> int:
        if self.free_slots:
            return self.free_slots.pop()
        victim, slot = self.resident.popitem(last=False)
        self.swapper.evict(victim, slot)
        return slot

    def _admit(self, key: str) -> None:
        slot = self._take_slot()
        if self.swapper.holds(key):
            self.swapper.restore(key, slot)
        else:
            with self.streams.compute:
                self.slabs[slot].fill(0)
        self.resident[key] = slot

    def step(
        self,
        active: Sequence[str],
        deltas: Dict[str, cupy.ndarray],
        finished: Iterable[str] = (),
        decay: float = DEFAULT_DECAY,
    ) -> None:
        if len(active) > self.num_slots:
            raise ValueError(f"{len(active)} active keys exceed {self.num_slots} slots")
        for key in finished:
            slot = self.resident.pop(key, None)
            if slot is not None:
                self.free_slots.append(slot)
        for key in active:
            if key in self.resident:
                self.resident.move_to_end(key)
        for key in active:
            if key not in self.resident:
                self._admit(key)
        with self.streams.compute:
            for key in active:
                _decay_update(deltas[key], numpy.float32(decay), self.slabs[self.resident[key]])
        self.swapper.reap()
