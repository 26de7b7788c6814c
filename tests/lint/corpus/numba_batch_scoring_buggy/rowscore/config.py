from dataclasses import dataclass
from enum import Enum


class SyncMode(str, Enum):
    STREAM = "stream"
    EVENT = "event"


THREADS_PER_BLOCK = 128


@dataclass(frozen=True)
class ScoringConfig:
    num_workers: int = 4
    sync_mode: SyncMode = SyncMode.EVENT
    clip: float = 6.0
    device_id: int = 0
