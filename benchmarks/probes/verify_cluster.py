"""1% verification with clusters of 1 MiB (verify_cluster_bytes, committed) against 4 and 16 MiB:
the same share of blocks checked in fewer, larger checks, each of which costs the copy thread
and the verify thread a fixed host time. Paired, pinned as the sweep, 10 repeats.

Ran against commit 92bad91 (1 MiB clusters committed then; 4 MiB since 2ee6ddd); output in
benchmarks/results/probes-h200/verify_cluster.txt.
"""

from paired_rows import Pinned, compare, medians

from kvguard.runtime import GuardPolicy, OrderedCopyBackend

CLUSTERS = {"c1M": 1 << 20, "c4M": 4 << 20, "c16M": 16 << 20}
NAMES = ["ordered", *CLUSTERS]
ROWS = ((64 << 10, 128), (64 << 10, 1024), (256 << 10, 128), (1 << 20, 128), (256 << 10, 16),
        (16 << 10, 1024), (2 << 20, 16))


def make(name: str) -> OrderedCopyBackend:
    backend = OrderedCopyBackend(GuardPolicy.RAISE, verify_fraction=0.0 if name == "ordered" else 0.01,
                                 verify_seed=0)
    if name in CLUSTERS:
        backend.verify_cluster_bytes = CLUSTERS[name]
    return backend


pinned = Pinned()
for block, batch in ROWS:
    row = compare(pinned, block, batch, NAMES, make, repeats=10)
    checks = ", ".join(f"{n} {row.backends[n].verify_stats['checks']}/{row.backends[n].counters['verified']}"
                       for n in CLUSTERS)
    print(f"{block >> 10}K x {batch}: {medians(row.ratios)}; checks/verified {checks}", flush=True)
    row.shutdown()
