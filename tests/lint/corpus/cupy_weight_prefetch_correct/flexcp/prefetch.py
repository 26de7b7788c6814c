import logging

import cupy

from .host_store import HostWeightStore
from .policy import Policy

logger = logging.getLogger(__name__)


class WeightPrefetcher:
    def __init__(self, policy: Policy, store: HostWeightStore) -> None:
        self.policy = policy
        self.store = store
        self.load_stream = cupy.cuda.Stream(non_blocking=True)
        self.slots = [cupy.empty((policy.hidden, policy.hidden), dtype=cupy.float16)
                      for _ in range(policy.num_slots)]
        self._loaded = [cupy.cuda.Event(disable_timing=True) for _ in self.slots]
        self._released = [cupy.cuda.Event(disable_timing=True) for _ in self.slots]

    def slot_of(self, layer: int) -> int:
        return layer % self.policy.num_slots

    def release(self, layer: int, compute: cupy.cuda.Stream) -> None:
        self._released[self.slot_of(layer)].record(compute)

    def prefetch(self, layer: int) -> None:
        if layer >= self.policy.num_layers:
            return
        slot = self.slot_of(layer)
        self.load_stream.wait_event(self._released[slot])
        self.slots[slot].set(self.store[layer], stream=self.load_stream)
        self._loaded[slot].record(self.load_stream)
        logger.debug("prefetch layer %d -> slot %d", layer, slot)

    def acquire(self, layer: int, compute: cupy.cuda.Stream) -> cupy.ndarray:
        slot = self.slot_of(layer)
        compute.wait_event(self._loaded[slot])
        return self.slots[slot]
