import hashlib
import logging
from dataclasses import dataclass
from typing import Dict, Hashable, List, Optional, Tuple

import cupy
import numpy

from slabswap._consts import DIGEST_BYTES
from slabswap.pinned import HostSlabPool
from slabswap.streams import StreamSet

logger = logging.getLogger(__name__)


@dataclass
class _Spilled:
    host_idx: int
    host: numpy.ndarray
    done: cupy.cuda.Event
    digest: Optional[str] = None


class SlabSwapper:
    def __init__(self, slabs: cupy.ndarray, streams: StreamSet, pool: HostSlabPool, verify: bool = False):
        self.slabs = slabs
        self.streams = streams
        self.pool = pool
        self.verify = verify
        self._spilled: Dict[Hashable, _Spilled] = {}
        self._releasing: List[Tuple[int, cupy.cuda.Event]] = []

    def holds(self, key: Hashable) -> bool:
        return key in self._spilled

    def evict(self, key: Hashable, slot: int) -> None:
        idx, host = self.pool.acquire()
        self.streams.order(self.streams.d2h, self.streams.compute)
        self.slabs[slot].get(stream=self.streams.d2h, out=host, blocking=False)
        entry = _Spilled(idx, host, self.streams.d2h.record())
        if self.verify:
            entry.done.synchronize()
            entry.digest = hashlib.blake2b(host, digest_size=DIGEST_BYTES).hexdigest()
        self._spilled[key] = entry
        logger.debug("spilled %s from slot %d", key, slot)

    def restore(self, key: Hashable, slot: int) -> None:
        entry = self._spilled.pop(key)
        self.streams.h2d.wait_event(entry.done)
        self.streams.order(self.streams.h2d, self.streams.compute)
        self.slabs[slot].set(entry.host, stream=self.streams.h2d)
        ready = self.streams.order(self.streams.compute, self.streams.h2d)
        self._releasing.append((entry.host_idx, ready))

    def reap(self) -> None:
        pending = []
        for idx, event in self._releasing:
            if event.done:
                self.pool.release(idx)
            else:
                pending.append((idx, event))
        self._releasing = pending
