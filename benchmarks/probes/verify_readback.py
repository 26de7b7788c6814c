"""1% verification that reads sampled blocks back to the GPU (this commit) against ordered
alone, in paired windows pinned as the sweep, 10 repeats, on the rows verification missed.

Ran against commit 3c5f8be (verification read back on the GPU, reverted in 548554e); it
runs only there: `git checkout 3c5f8be -- kvguard`. Output in
benchmarks/results/probes-h200/verify_readback.txt.
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
compute = torch.cuda.Stream()
NAMES = ["ordered", "verified"]
for block, batch in (
    (64 << 10, 128),
    (64 << 10, 1024),
    (256 << 10, 128),
    (256 << 10, 1024),
    (1 << 20, 128),
    (2 << 20, 16),
    (16 << 10, 1024),
    (16 << 10, 16),
):
    gpu = {"kv": torch.zeros(2 * HOST, block, dtype=torch.uint8, device=dev)}
    cpu = {"kv": torch.zeros(HOST, block, dtype=torch.uint8).pin_memory()}
    batches = rb.batches_for(block, batch)
    raw = BatchCopier(gpu, cpu, torch.cuda.Stream())
    variants = {}
    for n in NAMES:
        b = OrderedCopyBackend(
            GuardPolicy.RAISE, verify_fraction=0.01 if n == "verified" else 0.0, verify_seed=0
        )
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
        for n in NAMES[rep % 2 :] + NAMES[: rep % 2]:
            before = rb.time_raw(raw, batches)
            rb.pin(0, request_cpu)
            try:
                s = rb.time_backend(variants[n], compute, batches)
            finally:
                rb.pin(0, copy_cpu)
            after = rb.time_raw(raw, batches)
            ratios[n].append((before + after) / 2 / s)
    v = variants["verified"]
    print(
        f"{block >> 10}K x {batch}: "
        + ", ".join(f"{n} {statistics.median(r):.3f} [{min(r):.3f}-{max(r):.3f}]" for n, r in ratios.items())
        + f"; verified blocks {v.counters['verified']}, mismatches {v.counters['mismatches']},"
        f" checks {v.verify_stats['checks']}, verify cpu {v.verify_stats['cpu_s'] * 1e3:.0f} ms",
        flush=True,
    )
    for b in variants.values():
        b.shutdown()
