"""Copy attributes per transfer direction."""
import enum
from typing import NamedTuple

from cuda.bindings import runtime as cudart

_Order = cudart.cudaMemcpySrcAccessOrder
_Flags = cudart.cudaMemcpyFlags


class Direction(enum.Enum):
    SPILL = "d2h"       # device pages -> pinned host pages
    RESTORE = "h2d"     # pinned host pages -> device pages


class TransferSpec(NamedTuple):
    src_order: object
    overlap_with_compute: bool

    def to_attrs(self) -> cudart.cudaMemcpyAttributes:
        attrs = cudart.cudaMemcpyAttributes()
        attrs.srcAccessOrder = self.src_order
        if self.overlap_with_compute:
            attrs.flags = _Flags.cudaMemcpyFlagPreferOverlapWithCompute
        return attrs

    @classmethod
    def for_direction(cls, direction: Direction) -> "TransferSpec":
        match direction:
            case Direction.SPILL | Direction.RESTORE:
                # the copy stream is ordered behind compute before every batch,
                # so let the driver schedule source reads as it likes
                return cls(_Order.cudaMemcpySrcAccessOrderAny, True)
            case _:
                raise ValueError(direction)
