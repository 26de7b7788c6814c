"""1% verification with the sampled blocks copied first in groups of 32 MiB or more
(_SPLIT_FROM, committed) against one call per group whatever its size, and ordered alone,
on the 64 KiB rows verification misses and a device-bound row. Paired, pinned, 10 repeats.

Ran against commit 548554e; output in benchmarks/results/probes-h200/verify_split.txt.
"""

from typing import Any

from paired_rows import Pinned, compare, medians

from kvguard.runtime import GuardPolicy, OrderedCopyBackend
from kvguard.runtime import backend as backend_module

SPLIT_FROM = backend_module._SPLIT_FROM
NAMES = ["ordered", "verified", "verified_nosplit"]
ROWS = ((64 << 10, 128), (64 << 10, 1024), (64 << 10, 16), (256 << 10, 128), (1 << 20, 128))


class NoSplit(OrderedCopyBackend):
    def _issue(self, group: Any) -> None:
        backend_module._SPLIT_FROM = 1 << 62
        try:
            super()._issue(group)
        finally:
            backend_module._SPLIT_FROM = SPLIT_FROM


def make(name: str) -> OrderedCopyBackend:
    cls = NoSplit if name.endswith("nosplit") else OrderedCopyBackend
    return cls(GuardPolicy.RAISE, verify_fraction=0.0 if name == "ordered" else 0.01, verify_seed=0)


pinned = Pinned()
for block, batch in ROWS:
    row = compare(pinned, block, batch, NAMES, make, repeats=10)
    checks = ", ".join(f"{n} {row.backends[n].verify_stats['checks']}" for n in NAMES[1:])
    print(f"{block >> 10}K x {batch}: {medians(row.ratios)}; checks {checks}", flush=True)
    row.shutdown()
