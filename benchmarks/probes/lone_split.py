"""A lone group larger than first_group_bytes, issued to an idle transfer stream, split into a
first driver call of first_group_bytes and one for the rest (so the GPU starts after a short
call), against one call, ordered and 1% verified. Pinned as the sweep; paired with raw
brackets, median over 10 repeats. Then a timeline of 64 KiB x 1,024 windows per variant.

Ran against commit 3640984 (before the split was committed in c171d5c); output in
benchmarks/results/probes-h200/lone_split.txt. To rerun: `git checkout 3640984 -- kvguard`.
"""

import statistics
import time

import torch
from paired_rows import Pinned, caches, compare, medians, rb

from kvguard.runtime import BatchCopier, GuardPolicy, OrderedCopyBackend


class Split(OrderedCopyBackend):
    splits = 0

    def _issue_copy(self, copier, src, dst, staging=None, plans=None):
        first = max(1, self.first_group_bytes // self._bytes_per_block)
        if staging is None and plans is None and len(src) > first and copier.stream.query():
            self.splits += 1
            copier.copy(src[:first], dst[:first])
            copier.copy(src[first:], dst[first:])
            return
        super()._issue_copy(copier, src, dst, staging, plans)


def traced(base):
    class Traced(base):
        def __init__(self, *a, **k):
            super().__init__(*a, **k)
            self.marks = []
            self.first_copy = []

        def _issue_copy(self, copier, src, dst, *rest):
            began = time.perf_counter()
            if not self.marks:
                event = torch.cuda.Event(enable_timing=True)
                event.record(copier.stream)
                self.first_copy.append(event)
            super()._issue_copy(copier, src, dst, *rest)
            self.marks.append((began, time.perf_counter(), len(src)))

    return Traced



def make(name, trace=False):
    base = Split if "split" in name else OrderedCopyBackend
    cls = traced(base) if trace else base
    return cls(GuardPolicy.RAISE, verify_fraction=0.01 if "verified" in name else 0.0, verify_seed=0)


NAMES = ("ordered", "split", "verified", "verified_split")
ROWS = ((64 << 10, 1024), (64 << 10, 128), (256 << 10, 128), (256 << 10, 1024), (1 << 20, 128),
        (2 << 20, 128), (1 << 20, 16), (16 << 10, 1024))
pinned = Pinned()
for block, batch in ROWS:
    row = compare(pinned, block, batch, NAMES, make, repeats=10)
    print(f"{row.heading(block, batch)}: {medians(row.ratios)}; splits "
          f"{row.backends['split'].splits}", flush=True)
    row.shutdown()

# Timeline, 64 KiB x 1,024.
block, batch = 64 << 10, 1024
gpu, cpu = caches(block)
batches = rb.batches_for(block, batch)
raw = BatchCopier(gpu, cpu, torch.cuda.Stream())
compute = torch.cuda.Stream()
for _ in range(3):
    torch.cuda.synchronize()
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    began = time.perf_counter()
    s.record(raw.stream)
    first_end = None
    for i, (src, dst) in enumerate(batches):
        raw.copy(src, dst)
        if i == 0:
            first_end = time.perf_counter()
    e.record(raw.stream)
    raw.stream.synchronize()
    print(f"  raw wall {(time.perf_counter() - began) * 1e3:.2f} ms gpu {s.elapsed_time(e):.2f} ms"
          f" first call {(first_end - began) * 1e3:.3f} ms", flush=True)
for name in NAMES:
    b = pinned.start(make(name, trace=True), gpu, cpu)
    rb.pin(0, pinned.request_cpu)
    rb.time_backend(b, compute, batches[:3])
    for _ in range(4):
        b.marks.clear()
        b.first_copy.clear()
        events = []
        torch.cuda.synchronize()
        start = torch.cuda.Event(enable_timing=True)
        start.record(b._store_copier.stream)
        began = time.perf_counter()
        with torch.cuda.stream(compute):
            for idx, (src, dst) in enumerate(batches):
                b.launch_copy(src, dst, True, idx, events)
        launched = time.perf_counter()
        b.drain()
        drained = time.perf_counter()
        end = torch.cuda.Event(enable_timing=True)
        end.record(b._store_copier.stream)
        events[-1][1].synchronize()
        end.synchronize()
        wall = time.perf_counter() - began
        m = b.marks
        print(f"  {name} wall {wall * 1e3:.2f} ms gpu start->first copy "
              f"{start.elapsed_time(b.first_copy[0]):.2f} first->end "
              f"{b.first_copy[0].elapsed_time(end):.2f} ms; launch loop "
              f"{(launched - began) * 1e3:.2f}; first issue at {(m[0][0] - began) * 1e3:.3f} "
              f"taking {(m[0][1] - m[0][0]) * 1e3:.3f}; calls {len(m)} mean "
              f"{statistics.mean(x[1] - x[0] for x in m) * 1e3:.3f}; last call end "
              f"{(m[-1][1] - began) * 1e3:.2f}; drained {(drained - began) * 1e3:.2f} ms",
              flush=True)
    rb.pin(0, pinned.copy_cpu)
    b.shutdown()
