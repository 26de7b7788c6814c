"""Source access order per copy direction: which orders are sound for which memory."""

from __future__ import annotations

import enum

from kvguard.runtime.errors import UnsafeSourceOrderError


class SourceOrder(enum.IntEnum):
    """CUmemcpySrcAccessOrder values, as the driver numbers them."""

    STREAM = 1
    DURING_API_CALL = 2
    ANY = 3


class MemoryKind(enum.Enum):
    """Where one side of a block copy lives."""

    DEVICE = "device"
    PINNED_HOST = "pinned_host"


def default_source_order(source: MemoryKind) -> SourceOrder:
    """STREAM for GPU memory (a stream may still write it); ANY for pinned host memory."""
    return SourceOrder.STREAM if source is MemoryKind.DEVICE else SourceOrder.ANY


def check_source_order(source: MemoryKind, order: SourceOrder) -> None:
    """Refuse an order that lets the driver read GPU memory ahead of the stream's barriers."""
    if source is MemoryKind.DEVICE and order is not SourceOrder.STREAM:
        raise UnsafeSourceOrderError(
            f"srcAccessOrder {order.name} on a GPU source lets the driver read the block "
            "before the transfer stream's wait on the compute stream takes effect, so a "
            "store can capture half-written KV data. Use SourceOrder.STREAM for copies whose "
            "source is GPU memory; ANY is only sound for a pinned host source."
        )
