"""Early planning (launch_copy plans in bursts) and the group block cap, paired against raw.

Pinned as the sweep. Variants: ordered (as committed), noearly (launch_copy never plans),
ordered1024 / noearly1024 (max_group_blocks = 1024). Median raw/variant over 8 repeats.
"""

from typing import Any

from paired_rows import Pinned, compare, medians

from kvguard.runtime import GuardPolicy, OrderedCopyBackend


class NoEarly(OrderedCopyBackend):
    def _plan_early(self, *args: Any) -> None:
        return None


VARIANTS = {"ordered": (OrderedCopyBackend, 256), "noearly": (NoEarly, 256),
            "ordered1024": (OrderedCopyBackend, 1024), "noearly1024": (NoEarly, 1024)}


def make(name: str) -> OrderedCopyBackend:
    cls, cap = VARIANTS[name]
    backend = cls(GuardPolicy.RAISE)
    backend.max_group_blocks = cap
    return backend


pinned = Pinned()
for block, batch in ((16 << 10, 128), (16 << 10, 1024), (64 << 10, 128), (64 << 10, 1024),
                     (16 << 10, 16), (64 << 10, 16), (256 << 10, 128), (256 << 10, 16), (1 << 20, 16)):
    stores = max(4, min(1000, (1 << 30) // (block * batch) // 2))  # half-size windows
    row = compare(pinned, block, batch, list(VARIANTS), make, repeats=8, stores=stores)
    print(f"{row.heading(block, batch)}: {medians(row.ratios, range_digits=2)}", flush=True)
    row.shutdown()
