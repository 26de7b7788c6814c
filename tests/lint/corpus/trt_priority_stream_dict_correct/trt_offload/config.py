"""Offload configuration: which priority each kind of eviction runs at."""

import enum
from dataclasses import dataclass, field
from typing import Dict


class OffloadPriority(enum.Enum):
    URGENT = "urgent"        # eviction needed to admit the next context request
    BACKGROUND = "background"  # proactive write-back of cold blocks


@dataclass
class OffloadConfig:
    num_host_blocks: int
    # CUDA stream priorities: lower value is higher priority
    stream_priorities: Dict[OffloadPriority, int] = field(default_factory=lambda: {
        OffloadPriority.URGENT: -1,
        OffloadPriority.BACKGROUND: 0,
    })
