"""Where the ordered copy thread's time goes, per group: wall and CPU time of each section.

Pinned as the sweep. Modes: gated (every request queued first; the requester then waits in
drain) and live (the requester launches while the copy thread copies, as the bench runs it).
Also raw's per-store wall for the same batches.
"""

import threading
import time
from collections import defaultdict

import torch
from paired_rows import Pinned, rb

from kvguard.runtime import BatchCopier, GuardPolicy, OrderedCopyBackend

pinned = Pinned()  # this thread on the copy CPU
copy_cpu, request_cpu = pinned.copy_cpu, pinned.request_cpu
dev = torch.device("cuda", 0)
HOST = 1024
wall, cpu = defaultdict(float), defaultdict(float)


def timed(name, fn):
    def inner(*a, **k):
        w, c = time.perf_counter(), time.thread_time()
        try:
            return fn(*a, **k)
        finally:
            wall[name] += time.perf_counter() - w
            cpu[name] += time.thread_time() - c

    return inner


class Sections(OrderedCopyBackend):
    def init(self, *a):
        self.gate = threading.Event()
        self.gate.set()
        self.groups = 0
        super().init(*a)
        for name in (
            "_group_block_cap",
            "_barrier",
            "_check",
            "_issue_copy",
            "_record_done",
            "_report_or_hand_off",
        ):
            setattr(self, name, timed(name, getattr(self, name)))
        self._done_events.take = timed("done_take", self._done_events.take)
        q = self._queue
        self._queue = type("Q", (), {})()
        self._queue.get = timed("queue_get", q.get)
        self._queue.empty = q.empty
        self._queue.put = q.put
        self._queue.qsize = q.qsize

    def _issue(self, group):
        self.gate.wait()
        self.groups += 1
        w, c = time.perf_counter(), time.thread_time()
        super()._issue(group)
        wall["_issue"] += time.perf_counter() - w
        cpu["_issue"] += time.thread_time() - c


def run(backend, compute, batches, gated):
    events = []
    if gated:
        backend.gate.clear()
    torch.cuda.synchronize()
    wall.clear()
    cpu.clear()
    t = time.perf_counter()
    with torch.cuda.stream(compute):
        for i, (s, d) in enumerate(batches):
            backend.launch_copy(s, d, True, i, events)
    if gated:
        wall.clear()
        cpu.clear()
        t = time.perf_counter()
        backend.gate.set()
    backend.drain()
    events[-1][1].synchronize()
    return time.perf_counter() - t


for block, batch in ((16 << 10, 1024), (16 << 10, 128), (64 << 10, 1024)):
    g = {"kv": torch.zeros(2 * HOST, block, dtype=torch.uint8, device=dev)}
    c = {"kv": torch.zeros(HOST, block, dtype=torch.uint8).pin_memory()}
    batches = rb.batches_for(block, batch, stores=max(4, (1 << 30) // (block * batch) // 2))
    raw = BatchCopier(g, c, torch.cuda.Stream())
    b = Sections(GuardPolicy.RAISE)
    b.init(g, c, dev, torch.cuda.Stream(), torch.cuda.Stream())
    rb.pin_backend_threads(b, copy_cpu, request_cpu)
    compute = torch.cuda.Stream()
    rb.time_raw(raw, batches[:3])
    rb.pin(0, request_cpu)
    run(b, compute, batches[:3], False)
    rb.pin(0, copy_cpu)
    for mode in ("gated", "live"):
        for rep in range(3):
            r = rb.time_raw(raw, batches)
            g0 = b.groups
            rb.pin(0, request_cpu)
            s = run(b, compute, batches, mode == "gated")
            rb.pin(0, copy_cpu)
            n = b.groups - g0

            def per(d, k, n=n):
                return d[k] / n * 1e6

            keys = sorted(wall, key=lambda k: -wall[k])
            print(
                f"{block >> 10}K x {batch} {mode} rep {rep}: raw {r * 1e3:.2f} ms, "
                f"ordered {s * 1e3:.2f} ms ({r / s:.3f}), {n} groups; per group wall/cpu us: "
                + ", ".join(f"{k} {per(wall, k):.1f}/{per(cpu, k):.1f}" for k in keys),
                flush=True,
            )
    b.shutdown()
