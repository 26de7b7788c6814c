"""Early planning (launch_copy plans in bursts) and the group block cap, paired against raw.

Pinned as the sweep. Variants: ordered (as committed), noearly (launch_copy never plans),
ordered1024 / noearly1024 (max_group_blocks = 1024). Median raw/variant over 8 repeats.
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


class NoEarly(OrderedCopyBackend):
    def _plan_early(self, *a):
        return None


for block, batch in (
    (16 << 10, 128),
    (16 << 10, 1024),
    (64 << 10, 128),
    (64 << 10, 1024),
    (16 << 10, 16),
    (64 << 10, 16),
    (256 << 10, 128),
    (256 << 10, 16),
    (1 << 20, 16),
):
    gpu = {"kv": torch.zeros(2 * HOST, block, dtype=torch.uint8, device=dev)}
    cpu = {"kv": torch.zeros(HOST, block, dtype=torch.uint8).pin_memory()}
    batches = rb.batches_for(block, batch, stores=max(4, min(1000, (1 << 30) // (block * batch) // 2)))
    raw = BatchCopier(gpu, cpu, torch.cuda.Stream())
    variants = {}
    for name, cls, cap in (
        ("ordered", OrderedCopyBackend, 256),
        ("noearly", NoEarly, 256),
        ("ordered1024", OrderedCopyBackend, 1024),
        ("noearly1024", NoEarly, 1024),
    ):
        b = cls(GuardPolicy.RAISE)
        b.max_group_blocks = cap
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
    for rep in range(8):
        turn = rep % len(variants)
        names = list(variants)[turn:] + list(variants)[:turn]
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
        + ", ".join(f"{n} {statistics.median(r):.3f} [{min(r):.2f}-{max(r):.2f}]" for n, r in ratios.items()),
        flush=True,
    )
    for b in variants.values():
        b.shutdown()
