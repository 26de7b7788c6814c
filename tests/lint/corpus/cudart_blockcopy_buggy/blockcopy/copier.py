from __future__ import annotations

from typing import Sequence

from cuda.bindings import runtime as cudart

from ._errors import check
from .layout import BlockLayout
from .streams import StreamSet, create_event


class BlockCopier:
    """Moves blocks between the device pool and the pinned host pool on ``streams.copy``.

    ``swap_out`` is called after the scheduler has queued the step that last
    wrote the victim blocks; ``swap_in`` before the step that will read them.
    """

    def __init__(self, layout: BlockLayout, streams: StreamSet, device: int = 0) -> None:
        self.layout = layout
        self.streams = streams
        self.device = device
        self._compute_mark = create_event()
        self._out_done = create_event()
        self._in_done = create_event()
        self._d2h_attrs = self._make_d2h_attrs()

    def _make_d2h_attrs(self) -> cudart.cudaMemcpyAttributes:
        attrs = cudart.cudaMemcpyAttributes()
        attrs.srcAccessOrder = cudart.cudaMemcpySrcAccessOrder.cudaMemcpySrcAccessOrderAny
        attrs.srcLocHint.type = cudart.cudaMemLocationType.cudaMemLocationTypeDevice
        attrs.srcLocHint.id = self.device
        attrs.dstLocHint.type = cudart.cudaMemLocationType.cudaMemLocationTypeHost
        attrs.flags = cudart.cudaMemcpyFlags.cudaMemcpyFlagPreferOverlapWithCompute
        return attrs

    def _order_after_compute(self) -> None:
        check(cudart.cudaEventRecord(self._compute_mark, self.streams.compute), "cudaEventRecord")
        check(
            cudart.cudaStreamWaitEvent(self.streams.copy, self._compute_mark, 0),
            "cudaStreamWaitEvent",
        )

    def swap_out(self, mapping: Sequence[tuple[int, int]]) -> None:
        """Copy ``(device_block, host_slot)`` pairs device -> host as one batch."""
        if not mapping:
            return
        self._order_after_compute()
        dsts = [self.layout.host_ptr(slot) for _, slot in mapping]
        srcs = [self.layout.device_ptr(block) for block, _ in mapping]
        sizes = [self.layout.block_bytes] * len(mapping)
        check(
            # expect: KVG002
            cudart.cudaMemcpyBatchAsync(
                dsts, srcs, sizes, len(mapping), [self._d2h_attrs], [0], 1, self.streams.copy
            ),
            "cudaMemcpyBatchAsync",
        )
        check(cudart.cudaEventRecord(self._out_done, self.streams.copy), "cudaEventRecord")

    def swap_in(self, mapping: Sequence[tuple[int, int]]) -> None:
        """Copy ``(host_slot, device_block)`` pairs host -> device into recycled blocks."""
        if not mapping:
            return
        nbytes = self.layout.block_bytes
        for slot, block in mapping:
            # expect: KVG004
            err, = cudart.cudaMemcpyAsync(
                self.layout.device_ptr(block),
                self.layout.host_ptr(slot),
                nbytes,
                cudart.cudaMemcpyKind.cudaMemcpyHostToDevice,
                self.streams.copy,
            )
            check(err, "cudaMemcpyAsync")
        check(cudart.cudaEventRecord(self._in_done, self.streams.copy), "cudaEventRecord")
        # The next step must not read the blocks before they land.
        check(
            cudart.cudaStreamWaitEvent(self.streams.compute, self._in_done, 0),
            "cudaStreamWaitEvent",
        )

    def wait_swap_out(self) -> None:
        """Block until host slots from the last ``swap_out`` hold valid data."""
        check(cudart.cudaEventSynchronize(self._out_done), "cudaEventSynchronize")
