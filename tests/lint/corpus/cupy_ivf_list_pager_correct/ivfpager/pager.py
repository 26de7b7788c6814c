"""Moves inverted lists between the GPU slot pool and the pinned host slot pool."""
import logging
from collections import OrderedDict
from typing import Dict, List, Tuple

import cupy

from .batchcopy import memcpy_batch
from .tiers import DeviceTier, PinnedTier, Tier

logger = logging.getLogger(__name__)


class ListPager:
    def __init__(self, gpu_slots: int, host_slots: int, slot_rows: int, dim: int):
        self.gpu = DeviceTier(gpu_slots, slot_rows, dim)
        self.host = PinnedTier(host_slots, slot_rows, dim)
        self.device_id = cupy.cuda.Device().id
        # kernels that add to / scan lists run on `compute`; paging runs on `copy_stream`
        self.compute = cupy.cuda.Stream(non_blocking=True)
        self.copy_stream = cupy.cuda.Stream(non_blocking=True)
        self.resident: "OrderedDict[int, int]" = OrderedDict()   # list id -> gpu slot (LRU order)
        self.spilled: Dict[int, int] = {}                        # list id -> host slot
        # completes once every list spilled so far has landed in its host slot
        self.spill_done = self.copy_stream.record()

    def _move(self, src: Tier, dst: Tier, pairs: List[Tuple[int, int]]) -> None:
        srcs = [src.ptr(s) for s, _ in pairs]
        dsts = [dst.ptr(d) for _, d in pairs]
        memcpy_batch(dsts, srcs, [src.slot_bytes] * len(pairs), self.copy_stream.ptr,
                     src_on_host=src.is_host, device_id=self.device_id)

    def evict(self, count: int) -> List[int]:
        """Spill the ``count`` least recently used lists to pinned host slots."""
        victims = list(self.resident.items())[:count]
        pairs = []
        for list_id, gpu_slot in victims:
            host_slot = self.host.take()
            pairs.append((gpu_slot, host_slot))
            self.spilled[list_id] = host_slot
            del self.resident[list_id]
        if not pairs:
            return []
        # everything queued on compute so far (adds into these lists included) comes first
        self.copy_stream.wait_event(self.compute.record())
        self._move(self.gpu, self.host, pairs)
        self.spill_done = self.copy_stream.record()
        # the freed GPU slots may be refilled by compute only after the copy has read them
        self.compute.wait_event(self.spill_done)
        for gpu_slot, _ in pairs:
            self.gpu.give(gpu_slot)
        return [list_id for list_id, _ in victims]

    def fetch(self, list_ids: List[int]) -> Dict[int, int]:
        """Make ``list_ids`` resident; returns their GPU slots."""
        pairs, slots = [], {}
        for list_id in list_ids:
            if list_id in self.resident:
                self.resident.move_to_end(list_id)
                slots[list_id] = self.resident[list_id]
                continue
            if not self.gpu.free:
                self.evict(max(1, len(list_ids) - len(slots)))
            gpu_slot = self.gpu.take()
            pairs.append((self.spilled.pop(list_id), gpu_slot))
            self.resident[list_id] = gpu_slot
            slots[list_id] = gpu_slot
        if pairs:
            # a slot handed out here may have been scanned by a search still on compute
            self.copy_stream.wait_event(self.compute.record())
            # loads read their host slots out of stream order: a spill still in flight
            # into one of them must land first
            self.spill_done.synchronize()
            self._move(self.host, self.gpu, pairs)
            self.compute.wait_event(self.copy_stream.record())
            # the host slots are free once the copy has read them
            self.copy_stream.synchronize()
            for host_slot, _ in pairs:
                self.host.give(host_slot)
        return slots
