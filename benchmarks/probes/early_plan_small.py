"""Early planning for blocks below plan_early_below (32 KiB) against none (plan_early_below 0),
ordered and 1% verified. Pinned as the sweep; paired with raw brackets, median over 12 repeats.
"""

from paired_rows import Pinned, compare, medians

from kvguard.runtime import GuardPolicy, OrderedCopyBackend

NAMES = ("early", "none", "early_verified", "none_verified")


def make(name: str) -> OrderedCopyBackend:
    backend = OrderedCopyBackend(GuardPolicy.RAISE, verify_fraction=0.01 if "verified" in name else 0.0,
                                 verify_seed=0)
    if name.startswith("none"):
        backend.plan_early_below = 0
    return backend


pinned = Pinned()
for block, batch in ((16 << 10, 1024), (16 << 10, 128), (64 << 10, 1024)):
    row = compare(pinned, block, batch, NAMES, make, repeats=12)
    print(f"{row.heading(block, batch)}: {medians(row.ratios)}", flush=True)
    row.shutdown()
