"""Early planning for blocks below plan_early_below (32 KiB) against none (plan_early_below 0),
ordered and 1% verified. Pinned as the sweep; paired with raw brackets, median over 12 repeats.
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

for block, batch in ((16 << 10, 1024), (16 << 10, 128), (64 << 10, 1024)):
    gpu = {"kv": torch.zeros(2 * HOST, block, dtype=torch.uint8, device=dev)}
    cpu = {"kv": torch.zeros(HOST, block, dtype=torch.uint8).pin_memory()}
    batches = rb.batches_for(block, batch)
    raw = BatchCopier(gpu, cpu, torch.cuda.Stream())
    variants = {}
    for name in ("early", "none", "early_verified", "none_verified"):
        b = OrderedCopyBackend(
            GuardPolicy.RAISE, verify_fraction=0.01 if "verified" in name else 0.0, verify_seed=0
        )
        if name.startswith("none"):
            b.plan_early_below = 0
        b.init(gpu, cpu, dev, torch.cuda.Stream(), torch.cuda.Stream())
        rb.pin_backend_threads(b, copy_cpu, request_cpu)
        variants[name] = b
    compute = torch.cuda.Stream()
    rb.time_raw(raw, batches[:3])
    for b in variants.values():
        rb.pin(0, request_cpu)
        rb.time_backend(b, compute, batches[:3])
        rb.pin(0, copy_cpu)
    ratios = {n: [] for n in variants}
    for rep in range(12):
        names = list(variants)[rep % 4 :] + list(variants)[: rep % 4]
        for n in names:
            before = rb.time_raw(raw, batches)
            rb.pin(0, request_cpu)
            try:
                s = rb.time_backend(variants[n], compute, batches)
            finally:
                rb.pin(0, copy_cpu)
            after = rb.time_raw(raw, batches)
            ratios[n].append((before + after) / 2 / s)
    print(
        f"{block >> 10}K x {batch} ({len(batches)} stores, raw {rb.time_raw(raw, batches) * 1e3:.1f} ms): "
        + ", ".join(f"{n} {statistics.median(r):.3f} [{min(r):.3f}-{max(r):.3f}]" for n, r in ratios.items()),
        flush=True,
    )
    for b in variants.values():
        b.shutdown()
