"""A fixed-size GPU cache of node feature rows, filled on demand from the registered host
table. Rows are copied with raw ``cudaMemcpyAsync`` calls on a loader stream so that the
copies of one mini-batch overlap the aggregation of the previous one; the compute stream
waits on the loader's event before it gathers from the cache.

Eviction is LRU. Slots holding nodes of the batch being prepared are never chosen as
victims, and a refill waits for the kernels of earlier batches, which may still be reading
the evicted rows, through the event ``release`` records on the compute stream."""

from collections import OrderedDict
from typing import Dict, List

import cupy
import numpy as np
from cupy.cuda import runtime

from gnnfeat.host_table import HostFeatureTable


class DeviceFeatureCache:
    def __init__(self, table: HostFeatureTable, num_slots: int, compute: cupy.cuda.Stream):
        self.table = table
        self.num_slots = num_slots
        self.compute = compute
        self.loader = cupy.cuda.Stream(non_blocking=True)
        self.rows = cupy.empty((num_slots, table.dim), dtype=cupy.float16)
        self.slot_of: "OrderedDict[int, int]" = OrderedDict()
        self.free: List[int] = list(range(num_slots))
        self._loaded = runtime.eventCreateWithFlags(runtime.eventDisableTiming)
        self._consumed = runtime.eventCreateWithFlags(runtime.eventDisableTiming)
        self.hits = 0
        self.misses = 0

    def _victim(self, protected: Dict[int, int]) -> int:
        if self.free:
            return self.free.pop()
        for node, slot in self.slot_of.items():
            if node not in protected:
                del self.slot_of[node]
                return slot
        raise RuntimeError("cache smaller than one mini-batch")

    def lookup(self, nodes: np.ndarray) -> cupy.ndarray:
        """Slot index of every node, loading the missing rows; the returned index array and
        the rows it points at are ready for kernels queued on the compute stream."""
        protected: Dict[int, int] = {}
        runtime.streamWaitEvent(self.loader.ptr, self._consumed, 0)
        slots = np.empty(len(nodes), dtype=np.int32)
        for i, node in enumerate(nodes.tolist()):
            slot = self.slot_of.get(node)
            if slot is not None:
                self.slot_of.move_to_end(node)
                self.hits += 1
            else:
                slot = self._victim(protected)
                self._load_row(node, slot)
                self.slot_of[node] = slot
                self.misses += 1
            protected[node] = slot
            slots[i] = slot
        runtime.eventRecord(self._loaded, self.loader.ptr)
        runtime.streamWaitEvent(self.compute.ptr, self._loaded, 0)
        with self.compute:
            return cupy.asarray(slots)

    def _load_row(self, node: int, slot: int) -> None:
        dst = self.rows.data.ptr + slot * self.table.row_bytes
        runtime.memcpyAsync(dst, self.table.row_ptr(node), self.table.row_bytes,
                            runtime.memcpyHostToDevice, self.loader.ptr)

    def release(self) -> None:
        """Called once the kernels reading the cache for a batch have been queued."""
        runtime.eventRecord(self._consumed, self.compute.ptr)

    def close(self) -> None:
        runtime.streamSynchronize(self.loader.ptr)
        runtime.eventDestroy(self._loaded)
        runtime.eventDestroy(self._consumed)
