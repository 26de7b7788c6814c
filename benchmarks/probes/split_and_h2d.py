"""(1) The two changes of this round against the code without them, in paired windows pinned as
the sweep: a lone group above first_group_bytes to an idle stream split into two driver calls,
and launch_copy keeping the caller's lists (old: tuples copied, one call). Ordered and 1%
verified, 10 repeats. (2) Whether host-to-device traffic costs device-to-host bandwidth: raw
stores alone, with 1% more bytes device-to-host on their stream (today's verification
staging), and with 1% (and 2%) host-to-device on another stream, paired.

Ran against commit c171d5c; output in benchmarks/results/probes-h200/split_and_h2d.txt."""

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
dev = torch.device("cuda", 0)
HOST = 1024


class Old(OrderedCopyBackend):
    def launch_copy(self, src, dst, *args, **kwargs):
        super().launch_copy(tuple(src), tuple(dst), *args, **kwargs)

    def _issue_blocks(self, copier, src, dst, plans):
        self._issue_copy(copier, src, dst, None, plans)


def make(name, gpu, cpu):
    cls = Old if name.startswith("old") else OrderedCopyBackend
    b = cls(GuardPolicy.RAISE, verify_fraction=0.01 if "verified" in name else 0.0, verify_seed=0)
    b.init(gpu, cpu, dev, torch.cuda.Stream(), torch.cuda.Stream())
    rb.pin_backend_threads(b, copy_cpu, request_cpu)
    return b


def paired(raw, batches, run, names, reps):
    ratios = {n: [] for n in names}
    for rep in range(reps):
        order = names[rep % len(names) :] + names[: rep % len(names)]
        for n in order:
            before = rb.time_raw(raw, batches)
            s = run(n)
            after = rb.time_raw(raw, batches)
            ratios[n].append((before + after) / 2 / s)
    return ", ".join(f"{n} {statistics.median(r):.3f} [{min(r):.3f}-{max(r):.3f}]" for n, r in ratios.items())


NAMES = ["new", "old", "new_verified", "old_verified"]
rows = (
    (64 << 10, 1024),
    (64 << 10, 128),
    (256 << 10, 128),
    (256 << 10, 1024),
    (1 << 20, 128),
    (2 << 20, 128),
    (1 << 20, 16),
    (16 << 10, 1024),
    (256 << 10, 16),
    (2 << 20, 1024),
)
compute = torch.cuda.Stream()
for block, batch in rows:
    gpu = {"kv": torch.zeros(2 * HOST, block, dtype=torch.uint8, device=dev)}
    cpu = {"kv": torch.zeros(HOST, block, dtype=torch.uint8).pin_memory()}
    batches = rb.batches_for(block, batch)
    raw = BatchCopier(gpu, cpu, torch.cuda.Stream())
    variants = {n: make(n, gpu, cpu) for n in NAMES}
    rb.time_raw(raw, batches[:3])
    for b in variants.values():
        rb.pin(0, request_cpu)
        rb.time_backend(b, compute, batches[:3])
        rb.pin(0, copy_cpu)

    def run(n, variants=variants, batches=batches):
        rb.pin(0, request_cpu)
        try:
            return rb.time_backend(variants[n], compute, batches)
        finally:
            rb.pin(0, copy_cpu)

    print(
        f"{block >> 10}K x {batch} ({len(batches)} stores): " + paired(raw, batches, run, NAMES, 10),
        flush=True,
    )
    for b in variants.values():
        b.shutdown()
    del gpu, cpu

print("-- host-to-device beside device-to-host (raw stores, paired against raw alone)")
for block, batch in ((1 << 20, 128), (256 << 10, 1024), (2 << 20, 16), (256 << 10, 128)):
    gpu = {"kv": torch.zeros(2 * HOST, block, dtype=torch.uint8, device=dev)}
    cpu = {"kv": torch.zeros(HOST, block, dtype=torch.uint8).pin_memory()}
    batches = rb.batches_for(block, batch)
    raw = BatchCopier(gpu, cpu, torch.cuda.Stream())
    side = torch.cuda.Stream()
    store_bytes = block * batch
    one = max(1, store_bytes // 100)
    gpu_rows = torch.empty(2 * one, dtype=torch.uint8, device=dev)
    host_rows = torch.empty(2 * one, dtype=torch.uint8).pin_memory()
    flat_gpu = gpu["kv"].view(-1)
    flat_cpu = cpu["kv"].view(-1)

    def run(
        n,
        raw=raw,
        batches=batches,
        side=side,
        one=one,
        gpu_rows=gpu_rows,
        host_rows=host_rows,
        flat_gpu=flat_gpu,
        flat_cpu=flat_cpu,
    ):
        torch.cuda.synchronize()
        start = time.perf_counter()
        for src, dst in batches:
            raw.copy(src, dst)
            if n == "d2h_1pct":
                with torch.cuda.stream(raw.stream):
                    host_rows[:one].copy_(flat_gpu[:one], non_blocking=True)
            elif n.startswith("h2d"):
                size = one if n == "h2d_1pct" else 2 * one
                side.wait_stream(raw.stream)  # behind the store, as a check would be
                with torch.cuda.stream(side):
                    gpu_rows[:size].copy_(flat_cpu[:size], non_blocking=True)
        raw.stream.synchronize()
        side.synchronize()
        return time.perf_counter() - start

    for n in ("alone", "d2h_1pct", "h2d_1pct", "h2d_2pct"):
        run(n)
    print(
        f"{block >> 10}K x {batch}: "
        + paired(raw, batches, run, ["alone", "d2h_1pct", "h2d_1pct", "h2d_2pct"], 8),
        flush=True,
    )
    del gpu, cpu
