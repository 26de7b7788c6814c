import collections
from dataclasses import dataclass
from typing import Any, Optional

from numba import cuda


def mark(stream) -> Any:
    evt = cuda.event(timing=False)
    evt.record(stream=stream)
    return evt


@dataclass
class DeviceSlot:
    index: int
    data: Any
    adapter_id: Optional[int] = None
    released: Optional[Any] = None


class SlotTable:
    """Fixed number of device slots, LRU-replaced by adapter id."""

    def __init__(self, num_slots: int, shape: tuple, dtype):
        self.slots = [DeviceSlot(i, cuda.device_array(shape, dtype=dtype)) for i in range(num_slots)]
        self._by_adapter: "collections.OrderedDict[int, DeviceSlot]" = collections.OrderedDict()
        self._unused = collections.deque(self.slots)

    def lookup(self, adapter_id: int) -> Optional[DeviceSlot]:
        slot = self._by_adapter.get(adapter_id)
        if slot is not None:
            self._by_adapter.move_to_end(adapter_id)
        return slot

    def claim(self, adapter_id: int) -> DeviceSlot:
        if self._unused:
            slot = self._unused.popleft()
        else:
            _, slot = self._by_adapter.popitem(last=False)
        slot.adapter_id = adapter_id
        self._by_adapter[adapter_id] = slot
        return slot
