from __future__ import annotations

import enum
from dataclasses import dataclass


class SrcAccessOrder(enum.IntEnum):
    """Mirror of ``CUmemcpySrcAccessOrder`` so callers need not import the driver."""

    STREAM = 1
    DURING_API_CALL = 2
    ANY = 3


class Tier(enum.Enum):
    GPU = "gpu"
    CPU = "cpu"


@dataclass(frozen=True)
class BlockMove:
    src_block: int
    dst_block: int
    src_device: int
    dst_device: int | None  # None when the destination is the host pool

    @property
    def dst_tier(self) -> Tier:
        return Tier.CPU if self.dst_device is None else Tier.GPU
