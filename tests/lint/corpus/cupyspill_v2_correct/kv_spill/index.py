import logging
import queue
import threading
import zlib
from dataclasses import dataclass
from typing import Dict, Hashable, Optional, Tuple

import numpy

from kv_spill.config import SPILL_LOGGER_NAME

logger = logging.getLogger(SPILL_LOGGER_NAME)


@dataclass
class SpillEntry:
    host: numpy.ndarray
    crc: Optional[int]


class SpillIndex:
    """Host-side catalogue of spilled chunks, filled from stream callbacks."""

    def __init__(self, verify_checksum: bool):
        self.verify_checksum = verify_checksum
        self._entries: Dict[Hashable, SpillEntry] = {}
        self._lock = threading.Lock()
        self.completed: "queue.SimpleQueue[Hashable]" = queue.SimpleQueue()

    def on_spilled(self, arg: Tuple[Hashable, numpy.ndarray]) -> None:
        key, host = arg
        crc = None
        if self.verify_checksum:
            crc = zlib.crc32(host)
        with self._lock:
            self._entries[key] = SpillEntry(host=host, crc=crc)
        self.completed.put(key)

    def lookup(self, key: Hashable) -> Optional[SpillEntry]:
        with self._lock:
            return self._entries.get(key)

    def pop(self, key: Hashable) -> Optional[SpillEntry]:
        with self._lock:
            return self._entries.pop(key, None)

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)
