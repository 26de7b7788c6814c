from collections import OrderedDict
from typing import Callable, Optional

EvictionCallback = Callable[[list[int]], list[int]]


class LRUEvictor:
    def __init__(self):
        self._lru: "OrderedDict[int, None]" = OrderedDict()
        self._callback: Optional[EvictionCallback] = None

    def set_eviction_callback(self, callback: EvictionCallback) -> None:
        self._callback = callback

    def touch(self, block_id: int) -> None:
        self._lru[block_id] = None
        self._lru.move_to_end(block_id)

    def remove(self, block_id: int) -> None:
        self._lru.pop(block_id, None)

    def evict(self, num_blocks: int) -> list[int]:
        victims = [self._lru.popitem(last=False)[0] for _ in range(min(num_blocks, len(self._lru)))]
        if victims and self._callback is not None:
            return self._callback(victims)
        return victims
