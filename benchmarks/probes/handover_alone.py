"""Hand over for a large backlog however few requests hold it (handover_bytes_alone, 16 MiB)
against the hand-over at 16 requests and 4 MiB only (b3c2e6a). Pinned as the sweep; paired
with raw brackets, median over 10 repeats; also the ordered window's hand-overs.
"""

import statistics
import sys
import time
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
sleeps = {"n": 0}
real_sleep = time.sleep


def counted_sleep(seconds):
    if seconds == backend_module._HANDOVER_SLEEP_S:
        sleeps["n"] += 1
    real_sleep(seconds)


backend_module.time.sleep = counted_sleep

rows = (
    (256 << 10, 128),
    (256 << 10, 1024),
    (1 << 20, 16),
    (1 << 20, 128),
    (2 << 20, 16),
    (2 << 20, 128),
    (16 << 10, 1024),
    (64 << 10, 1024),
    (64 << 10, 128),
    (1 << 20, 1),
    (256 << 10, 16),
)
for block, batch in rows:
    gpu = {"kv": torch.zeros(2 * HOST, block, dtype=torch.uint8, device=dev)}
    cpu = {"kv": torch.zeros(HOST, block, dtype=torch.uint8).pin_memory()}
    batches = rb.batches_for(block, batch)
    raw = BatchCopier(gpu, cpu, torch.cuda.Stream())
    variants = {}
    for name in ("alone16M", "count_only"):
        b = OrderedCopyBackend(GuardPolicy.RAISE)
        if name == "count_only":
            b.handover_bytes_alone = 1 << 62
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
    handovers = {n: 0 for n in variants}
    for rep in range(10):
        names = list(variants)[rep % 2 :] + list(variants)[: rep % 2]
        for n in names:
            before = rb.time_raw(raw, batches)
            rb.pin(0, request_cpu)
            s0 = sleeps["n"]
            try:
                s = rb.time_backend(variants[n], compute, batches)
            finally:
                rb.pin(0, copy_cpu)
            handovers[n] += sleeps["n"] - s0
            after = rb.time_raw(raw, batches)
            ratios[n].append((before + after) / 2 / s)
    print(
        f"{block >> 10}K x {batch} ({len(batches)} stores, raw {rb.time_raw(raw, batches) * 1e3:.1f} ms): "
        + ", ".join(
            f"{n} {statistics.median(r):.3f} [{min(r):.3f}-{max(r):.3f}] "
            f"hand-overs/window {handovers[n] / 10:.0f}"
            for n, r in ratios.items()
        ),
        flush=True,
    )
    for b in variants.values():
        b.shutdown()
