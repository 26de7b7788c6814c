"""1% verification with the sampled blocks copied first in groups of 32 MiB or more
(_SPLIT_FROM, committed) against one call per group whatever its size, and ordered alone,
on the 64 KiB rows verification misses and a device-bound row. Paired, pinned, 10 repeats.

Ran against commit 548554e; output in benchmarks/results/probes-h200/verify_split.txt.
"""

import statistics
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import runtime_bench as rb

from kvguard.runtime import BatchCopier, GuardPolicy, OrderedCopyBackend
from kvguard.runtime import backend as backend_module

speeds = rb.cpu_speeds(rounds=2)
ranked = sorted(speeds, key=lambda cpu: max(speeds[cpu]))
copy_cpu, request_cpu = ranked[0], ranked[1]
rb.pin(0, copy_cpu)
dev = torch.device("cuda", 0)
HOST = 1024
SPLIT_FROM = backend_module._SPLIT_FROM


class NoSplit(OrderedCopyBackend):
    def _issue(self, group):
        backend_module._SPLIT_FROM = 1 << 62
        try:
            super()._issue(group)
        finally:
            backend_module._SPLIT_FROM = SPLIT_FROM


NAMES = ["ordered", "verified", "verified_nosplit"]
compute = torch.cuda.Stream()
for block, batch in ((64 << 10, 128), (64 << 10, 1024), (64 << 10, 16), (256 << 10, 128), (1 << 20, 128)):
    gpu = {"kv": torch.zeros(2 * HOST, block, dtype=torch.uint8, device=dev)}
    cpu = {"kv": torch.zeros(HOST, block, dtype=torch.uint8).pin_memory()}
    batches = rb.batches_for(block, batch)
    raw = BatchCopier(gpu, cpu, torch.cuda.Stream())
    variants = {}
    for n in NAMES:
        cls = NoSplit if n.endswith("nosplit") else OrderedCopyBackend
        b = cls(GuardPolicy.RAISE, verify_fraction=0.0 if n == "ordered" else 0.01, verify_seed=0)
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
        for n in NAMES[rep % 3 :] + NAMES[: rep % 3]:
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
        + "; checks "
        + ", ".join(f"{n} {variants[n].verify_stats['checks']}" for n in NAMES[1:]),
        flush=True,
    )
    for b in variants.values():
        b.shutdown()
