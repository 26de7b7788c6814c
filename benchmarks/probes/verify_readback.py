"""1% verification that reads sampled blocks back to the GPU (this commit) against ordered
alone, in paired windows pinned as the sweep, 10 repeats, on the rows verification missed.

Ran against commit 3c5f8be (verification read back on the GPU, reverted in 548554e); it
runs only there: `git checkout 3c5f8be -- kvguard`. Output in
benchmarks/results/probes-h200/verify_readback.txt.
"""

from paired_rows import Pinned, compare, medians

from kvguard.runtime import GuardPolicy, OrderedCopyBackend

NAMES = ["ordered", "verified"]
ROWS = ((64 << 10, 128), (64 << 10, 1024), (256 << 10, 128), (256 << 10, 1024), (1 << 20, 128),
        (2 << 20, 16), (16 << 10, 1024), (16 << 10, 16))


def make(name: str) -> OrderedCopyBackend:
    return OrderedCopyBackend(GuardPolicy.RAISE, verify_fraction=0.01 if name == "verified" else 0.0,
                              verify_seed=0)


pinned = Pinned()
for block, batch in ROWS:
    row = compare(pinned, block, batch, NAMES, make, repeats=10)
    verified = row.backends["verified"]
    print(f"{block >> 10}K x {batch}: {medians(row.ratios)}; verified blocks "
          f"{verified.counters['verified']}, mismatches {verified.counters['mismatches']}, checks "
          f"{verified.verify_stats['checks']}, verify cpu {verified.verify_stats['cpu_s'] * 1e3:.0f} ms",
          flush=True)
    row.shutdown()
