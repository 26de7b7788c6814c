"""What one launch_copy costs the requesting thread within a burst, call by call: as committed,
with the copy thread parked on a lock (it cannot want the GIL during the launch loop), and the
parts (the guard's open_request, the queue put) timed inside. Pinned as the sweep.

Ran against commit 3640984 (launch_copy still copied the block lists into tuples); output in
benchmarks/results/probes-h200/launch_cost.txt."""

import statistics
import threading
import time

import torch
from paired_rows import Pinned, caches, rb

from kvguard.runtime import GuardPolicy, OrderedCopyBackend


class Parked(OrderedCopyBackend):
    def __init__(self, *a, **k):
        super().__init__(*a, **k)
        self.park = threading.Lock()

    def _issue(self, group):
        with self.park:
            pass
        super()._issue(group)


class Timed(OrderedCopyBackend):
    def __init__(self, *a, **k):
        super().__init__(*a, **k)
        self.parts = {"open": 0.0, "put": 0.0}
        guard = self._guard
        real_open = guard.open_request
        parts = self.parts

        def open_request(*args):
            t = time.perf_counter()
            r = real_open(*args)
            parts["open"] += time.perf_counter() - t
            return r

        guard.open_request = open_request
        real_queue = self._queue

        class Q:
            def put(self, item):
                t = time.perf_counter()
                real_queue.put(item)
                parts["put"] += time.perf_counter() - t

            get = real_queue.get
            empty = real_queue.empty
            qsize = real_queue.qsize

        self._queue = Q()


pinned = Pinned()
compute = torch.cuda.Stream()
for block, batch in ((64 << 10, 1024), (1 << 20, 128), (1 << 20, 16), (16 << 10, 1024), (256 << 10, 1)):
    gpu, cpu = caches(block)
    batches = rb.batches_for(block, batch)[:64]
    for cls in (OrderedCopyBackend, Parked, Timed):
        b = pinned.start(cls(GuardPolicy.RAISE), gpu, cpu)
        rb.pin(0, pinned.request_cpu)
        rb.time_backend(b, compute, batches[:3])
        lines = []
        for _ in range(4):
            if cls is Timed:
                b.parts["open"] = b.parts["put"] = 0.0
            per = []
            events = []
            torch.cuda.synchronize()
            if cls is Parked:
                b.park.acquire()
            began = time.perf_counter()
            with torch.cuda.stream(compute):
                for idx, (src, dst) in enumerate(batches):
                    t = time.perf_counter()
                    b.launch_copy(src, dst, True, idx, events)
                    per.append(time.perf_counter() - t)
            loop = time.perf_counter() - began
            if cls is Parked:
                b.park.release()
            b.drain()
            events[-1][1].synchronize()
            us = sorted(p * 1e6 for p in per)
            extra = ""
            if cls is Timed:
                extra = (
                    f" open {b.parts['open'] / len(per) * 1e6:.1f} put "
                    f"{b.parts['put'] / len(per) * 1e6:.1f} us/launch"
                )
            lines.append(
                f"loop {loop * 1e3:.3f} ms ({len(per)}): first {per[0] * 1e6:.0f} "
                f"second {per[1] * 1e6:.0f} median {statistics.median(us):.1f} "
                f"p90 {us[len(us) * 9 // 10]:.1f} max {us[-1]:.0f} us{extra}"
            )
        print(f"{block >> 10}K x {batch} {cls.__name__}:\n  " + "\n  ".join(lines), flush=True)
        b.shutdown()
        rb.pin(0, pinned.copy_cpu)
