"""Is the host-bound loss the copy thread's own per-group cost or contention with the requester?

Pinned as the sweep. Per row, paired with raw brackets (median ratio raw/variant, groups/window):
  ordered      as the benchmark runs it (requester launching while the copy thread copies)
  gated        every request queued before the copy thread may issue (timer starts at release)
  ordered1024  max_group_blocks = 1024
  gated1024    both
  switch100us  ordered with sys.setswitchinterval(100e-6) during its window
"""

import platform
import statistics
import sys
import threading
import time

import torch
from paired_rows import Pinned, rb

from kvguard.runtime import BatchCopier, GuardPolicy, OrderedCopyBackend

print(platform.python_version(), "switchinterval", sys.getswitchinterval(), flush=True)
pinned = Pinned()  # this thread on the copy CPU
copy_cpu, request_cpu = pinned.copy_cpu, pinned.request_cpu
dev = torch.device("cuda", 0)
HOST = 1024


class Gated(OrderedCopyBackend):
    def init(self, *a):
        self.gate = threading.Event()
        self.gate.set()
        self.groups = 0
        super().init(*a)

    def _issue(self, group):
        self.gate.wait()
        self.groups += 1
        super()._issue(group)


def time_gated(backend, compute, batches):
    events = []
    backend.gate.clear()
    torch.cuda.synchronize()
    with torch.cuda.stream(compute):
        for i, (s, d) in enumerate(batches):
            backend.launch_copy(s, d, True, i, events)
    t = time.perf_counter()
    backend.gate.set()
    backend.drain()
    events[-1][1].synchronize()
    return time.perf_counter() - t


def time_switch(backend, compute, batches):
    old = sys.getswitchinterval()
    sys.setswitchinterval(100e-6)
    try:
        return rb.time_backend(backend, compute, batches)
    finally:
        sys.setswitchinterval(old)


for block, batch in ((16 << 10, 128), (16 << 10, 1024), (64 << 10, 128), (64 << 10, 1024)):
    gpu = {"kv": torch.zeros(2 * HOST, block, dtype=torch.uint8, device=dev)}
    cpu = {"kv": torch.zeros(HOST, block, dtype=torch.uint8).pin_memory()}
    batches = rb.batches_for(block, batch, stores=max(4, (1 << 30) // (block * batch) // 2))
    raw = BatchCopier(gpu, cpu, torch.cuda.Stream())
    variants = {}
    for name in ("ordered", "gated", "ordered1024", "gated1024", "switch100us"):
        b = Gated(GuardPolicy.RAISE)
        if name.endswith("1024"):
            b.max_group_blocks = 1024
        b.init(gpu, cpu, dev, torch.cuda.Stream(), torch.cuda.Stream())
        rb.pin_backend_threads(b, copy_cpu, request_cpu)
        timer = (
            time_gated
            if name.startswith("gated")
            else time_switch
            if name == "switch100us"
            else rb.time_backend
        )
        variants[name] = (b, timer)
    compute = torch.cuda.Stream()
    ratios = {n: [] for n in variants}
    groups = {n: 0 for n in variants}
    windows = 0
    rb.time_raw(raw, batches[:3])
    for b, timer in variants.values():
        rb.pin(0, request_cpu)
        timer(b, compute, batches[:3])
        rb.pin(0, copy_cpu)
    for _rep in range(8):
        for n, (b, timer) in variants.items():
            g0 = b.groups
            before = rb.time_raw(raw, batches)
            rb.pin(0, request_cpu)
            try:
                s = timer(b, compute, batches)
            finally:
                rb.pin(0, copy_cpu)
            after = rb.time_raw(raw, batches)
            ratios[n].append((before + after) / 2 / s)
            groups[n] += b.groups - g0
        windows += 1
    raw_ms = rb.time_raw(raw, batches) * 1e3
    print(
        f"{block >> 10}K x {batch} ({len(batches)} stores, raw {raw_ms:.1f} ms): "
        + ", ".join(
            f"{n} {statistics.median(r):.3f} [{min(r):.2f}-{max(r):.2f}] g/w {groups[n] / windows:.0f}"
            for n, r in ratios.items()
        ),
        flush=True,
    )
    for b, _ in variants.values():
        b.shutdown()
