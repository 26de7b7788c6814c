"""How launch_copy hands the GIL to the copy thread in a burst: bytes4M (as committed: wait for
the copy thread to take a group, once 16 requests and 4 MiB wait), count16 (the same wait at
16 requests whatever their bytes), sleep50 (a 50 µs sleep at 16 requests, before) and none.

Pinned as the sweep. Paired with raw brackets, median over 10 repeats. Also: what a
time.sleep(50e-6) lasts on this machine.
"""

import statistics
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import runtime_bench as rb

from kvguard.runtime import BatchCopier, GuardPolicy, OrderedCopyBackend

speeds = rb.cpu_speeds(rounds=2)
ranked = sorted(speeds, key=lambda cpu: max(speeds[cpu]))
copy_cpu, request_cpu = ranked[0], ranked[1]
rb.pin(0, copy_cpu)
lengths = []
for _ in range(2000):
    t = time.perf_counter()
    time.sleep(50e-6)
    lengths.append(time.perf_counter() - t)
lengths.sort()
print(
    f"time.sleep(50e-6) lasts p10/p50/p90 {lengths[200] * 1e6:.0f}/"
    f"{lengths[1000] * 1e6:.0f}/{lengths[1800] * 1e6:.0f} us",
    flush=True,
)
dev = torch.device("cuda", 0)
HOST = 1024


class Sleep50(OrderedCopyBackend):
    def _hand_over(self):
        time.sleep(50e-6)


class Counting(OrderedCopyBackend):
    handovers = 0

    def _hand_over(self):
        self.handovers += 1
        super()._hand_over()


for block, batch in (
    (16 << 10, 1),
    (64 << 10, 1),
    (256 << 10, 1),
    (1 << 20, 1),
    (16 << 10, 16),
    (64 << 10, 16),
    (256 << 10, 16),
    (1 << 20, 16),
    (16 << 10, 128),
    (16 << 10, 1024),
):
    gpu = {"kv": torch.zeros(2 * HOST, block, dtype=torch.uint8, device=dev)}
    cpu = {"kv": torch.zeros(HOST, block, dtype=torch.uint8).pin_memory()}
    batches = rb.batches_for(block, batch)
    raw = BatchCopier(gpu, cpu, torch.cuda.Stream())
    variants = {}
    for name, cls in (
        ("bytes4M", Counting),
        ("count16", OrderedCopyBackend),
        ("sleep50", Sleep50),
        ("none", OrderedCopyBackend),
    ):
        b = cls(GuardPolicy.RAISE)
        if name in ("count16", "sleep50"):
            b.handover_bytes = 0
        if name == "none":
            b.handover_backlog = 1 << 30
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
    h0 = variants["bytes4M"].handovers
    for rep in range(10):
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
    hand = (variants["bytes4M"].handovers - h0) / 10
    print(
        f"{block >> 10}K x {batch} ({len(batches)} stores, raw {rb.time_raw(raw, batches) * 1e3:.1f} ms; "
        f"bytes4M hand-overs/window {hand:.0f}): "
        + ", ".join(f"{n} {statistics.median(r):.3f} [{min(r):.2f}-{max(r):.2f}]" for n, r in ratios.items()),
        flush=True,
    )
    for b in variants.values():
        b.shutdown()
