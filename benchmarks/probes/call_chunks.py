"""64 KiB rows: does a group's copy go faster in driver calls of at most N bytes? The driver
takes a call's descriptors one by one before its first copy starts, so a 1,024-block group of
64 KiB waits about 1 ms before any copy; smaller calls would let the GPU start on each part
while the next is handed over. Variants: one call per group (committed), calls of at most 8
(raw's on 64 KiB x 128), 16 and 32 MiB, and groups capped at 256 blocks. Pinned as the sweep,
paired with raw windows. Output in benchmarks/results/probes-h200/call_chunks.txt.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from paired_rows import sweep

from kvguard.runtime import BatchCopier, GuardPolicy, OrderedCopyBackend
from kvguard.runtime.batch_copy import CopyPlan


class ChunkedCalls(OrderedCopyBackend):
    """A group's plans issued in driver calls of at most `call_bytes` each (a plan larger than
    that is planned again in parts); the split of a lone request to an idle stream as committed."""

    call_bytes = 1 << 62

    def _issue_blocks(self, copier: BatchCopier, src_blocks: Sequence[int],
                      dst_blocks: Sequence[int], plans: list[CopyPlan] | None,
                      split_at: int) -> None:
        if split_at:
            super()._issue_blocks(copier, src_blocks, dst_blocks, plans, split_at)
            return
        per_call = max(1, self.call_bytes // self._bytes_per_block)
        calls: list[list[CopyPlan]] = [[]]
        held = 0
        for plan in plans or [copier.plan(src_blocks, dst_blocks)]:
            blocks = len(plan.src_blocks)
            parts = [plan] if blocks <= per_call else [
                copier.plan(plan.src_blocks[start:start + per_call],
                            plan.dst_blocks[start:start + per_call])
                for start in range(0, blocks, per_call)]
            for part in parts:
                size = sum(part.sizes)
                if calls[-1] and held + size > self.call_bytes:
                    calls.append([])
                    held = 0
                calls[-1].append(part)
                held += size
        for call in calls:
            copier.copy_planned(call)


VARIANTS = {"committed": (1 << 62, 1024), "calls8M": (8 << 20, 1024), "calls16M": (16 << 20, 1024),
            "calls32M": (32 << 20, 1024), "group256": (1 << 62, 256)}
ROWS = ((64 << 10, 128), (64 << 10, 1024), (256 << 10, 128), (1024 << 10, 128),
        (2048 << 10, 16), (16 << 10, 1024), (16 << 10, 128))


def make(name: str) -> OrderedCopyBackend:
    call_bytes, group_blocks = VARIANTS[name]
    backend = ChunkedCalls(GuardPolicy.RAISE)
    backend.call_bytes = call_bytes
    backend.max_group_blocks = group_blocks
    return backend


def main() -> None:
    sweep(ROWS, list(VARIANTS), make, repeats=int(sys.argv[1]) if len(sys.argv) > 1 else 15)


if __name__ == "__main__":
    main()
