"""Single-block rows after a69cb8c: does the lazy group-cap query or the 1,024-block cap move them?

Pinned as the sweep. Variants paired with raw brackets (median of 10): new (a69cb8c), eager_cap
(a stream query before every group, as before a69cb8c), cap256 (max_group_blocks = 256).
"""

from typing import Any

from paired_rows import Pinned, compare, medians

from kvguard.runtime import GuardPolicy, OrderedCopyBackend


class EagerCap(OrderedCopyBackend):
    def _issue(self, group: Any) -> None:
        self._group_block_cap(group[0].request.is_store, self.max_group_blocks)
        super()._issue(group)


VARIANTS = {"new": (OrderedCopyBackend, 1024), "eager_cap": (EagerCap, 1024),
            "cap256": (OrderedCopyBackend, 256)}


def make(name: str) -> OrderedCopyBackend:
    cls, cap = VARIANTS[name]
    backend = cls(GuardPolicy.RAISE)
    backend.max_group_blocks = cap
    return backend


pinned = Pinned()
for block, batch in ((16 << 10, 1), (64 << 10, 1), (256 << 10, 1), (1 << 20, 1), (16 << 10, 128),
                     (64 << 10, 128)):
    row = compare(pinned, block, batch, list(VARIANTS), make, repeats=10)
    print(f"{row.heading(block, batch)}: {medians(row.ratios, range_digits=2)}", flush=True)
    row.shutdown()
