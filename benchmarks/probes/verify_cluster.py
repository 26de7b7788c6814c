"""1% verification with clusters of 1 MiB (verify_cluster_bytes, committed) against 4 and 16 MiB:
the same share of blocks checked in fewer, larger checks, each of which costs the copy thread
and the verify thread a fixed host time. Paired, pinned as the sweep, 10 repeats.

Ran against commit 92bad91 (1 MiB clusters committed then; 4 MiB since 2ee6ddd); output in
benchmarks/results/probes-h200/verify_cluster.txt.
"""

import statistics
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import runtime_bench as rb

from kvguard.runtime import BatchCopier, GuardPolicy, OrderedCopyBackend

speeds = rb.cpu_speeds(rounds=2)
ranked = sorted(speeds, key=lambda cpu: max(speeds[cpu]))
copy_cpu, request_cpu = ranked[0], ranked[1]
rb.pin(0, copy_cpu)
dev = torch.device("cuda", 0)
HOST = 1024
CLUSTERS = {"c1M": 1 << 20, "c4M": 4 << 20, "c16M": 16 << 20}
NAMES = ["ordered", *CLUSTERS]
compute = torch.cuda.Stream()
for block, batch in (
    (64 << 10, 128),
    (64 << 10, 1024),
    (256 << 10, 128),
    (1 << 20, 128),
    (256 << 10, 16),
    (16 << 10, 1024),
    (2 << 20, 16),
):
    gpu = {"kv": torch.zeros(2 * HOST, block, dtype=torch.uint8, device=dev)}
    cpu = {"kv": torch.zeros(HOST, block, dtype=torch.uint8).pin_memory()}
    batches = rb.batches_for(block, batch)
    raw = BatchCopier(gpu, cpu, torch.cuda.Stream())
    variants = {}
    for n in NAMES:
        b = OrderedCopyBackend(
            GuardPolicy.RAISE, verify_fraction=0.0 if n == "ordered" else 0.01, verify_seed=0
        )
        if n in CLUSTERS:
            b.verify_cluster_bytes = CLUSTERS[n]
        b.init(gpu, cpu, dev, torch.cuda.Stream(), torch.cuda.Stream())
        rb.pin_backend_threads(b, copy_cpu, request_cpu)
        variants[n] = b
    rb.time_raw(raw, batches[:3])
    for b in variants.values():
        rb.pin(0, request_cpu)
        rb.time_backend(b, compute, batches[:3])
        rb.pin(0, copy_cpu)
    ratios = {n: [] for n in NAMES}
    for rep in range(10):
        for n in NAMES[rep % 4 :] + NAMES[: rep % 4]:
            before = rb.time_raw(raw, batches)
            rb.pin(0, request_cpu)
            try:
                s = rb.time_backend(variants[n], compute, batches)
            finally:
                rb.pin(0, copy_cpu)
            after = rb.time_raw(raw, batches)
            ratios[n].append((before + after) / 2 / s)
    print(
        f"{block >> 10}K x {batch}: "
        + ", ".join(f"{n} {statistics.median(r):.3f} [{min(r):.3f}-{max(r):.3f}]" for n, r in ratios.items())
        + "; checks/verified "
        + ", ".join(
            f"{n} {variants[n].verify_stats['checks']}/{variants[n].counters['verified']}" for n in CLUSTERS
        ),
        flush=True,
    )
    for b in variants.values():
        b.shutdown()
