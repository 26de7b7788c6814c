"""Where does ordered lose ~10% at 16 KiB x 1024 (host-bound) against raw, pinned as the sweep is?

For raw and for the ordered backend (copy thread on the copy CPU, requester on another), per
store: GPU start/end (timing events recorded on the transfer stream around each copy), and on
the host: plan time, driver-call time, and (ordered) the backend's own time per group. Reports
the GPU idle time between consecutive stores and where the copy thread's time went.
Run on the GPU machine: PYTHONPATH=. python3 .probe/host_bound_timeline.py
"""

import random
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import runtime_bench as rb

from kvguard.runtime import BatchCopier, GuardPolicy, OrderedCopyBackend
from kvguard.runtime import batch_copy as bc

speeds = rb.cpu_speeds(rounds=2)
ranked = sorted(speeds, key=lambda cpu: max(speeds[cpu]))
copy_cpu, request_cpu = ranked[0], ranked[1]
rb.pin(0, copy_cpu)
print(
    "cpus", copy_cpu, request_cpu, {k: [round(x * 1e3, 1) for x in v] for k, v in speeds.items()}, flush=True
)

HOST = 1024
dev = torch.device("cuda", 0)

# Time planning and the driver call separately, on whichever thread calls them.
stats = {"plan": [], "call": []}
real_plan = bc.plan_block_copies


def timed_plan(*a):
    t = time.perf_counter()
    r = real_plan(*a)
    stats["plan"].append(time.perf_counter() - t)
    return r


bc.plan_block_copies = timed_plan
real_copy = BatchCopier.copy


def timed_copy(self, *a, **k):
    t = time.perf_counter()
    real_copy(self, *a, **k)
    stats["call"].append(time.perf_counter() - t)


BatchCopier.copy = timed_copy


class Marked(OrderedCopyBackend):
    """Records a timing event on the transfer stream before and after each group's copy."""

    def init(self, *a):
        super().init(*a)
        self.marks = []
        self.issue = []

    def _issue_copy(self, copier, src, dst, staging=None):
        a = torch.cuda.Event(enable_timing=True)
        b = torch.cuda.Event(enable_timing=True)
        a.record(copier.stream)
        super()._issue_copy(copier, src, dst, staging)
        b.record(copier.stream)
        self.marks.append((a, b))

    def _issue(self, group):
        t = time.perf_counter()
        super()._issue(group)
        self.issue.append(time.perf_counter() - t)


def gpu_gaps(marks):
    busy = [a.elapsed_time(b) for a, b in marks]
    gaps = [marks[i][1].elapsed_time(marks[i + 1][0]) for i in range(len(marks) - 1)]
    span = marks[0][0].elapsed_time(marks[-1][1])
    return span, sum(busy), sum(gaps), max(gaps) if gaps else 0.0


for block, batch in ((16 << 10, 1024), (16 << 10, 128), (64 << 10, 1024)):
    gpu = {"kv": torch.zeros(2 * HOST, block, dtype=torch.uint8, device=dev)}
    cpu = {"kv": torch.zeros(HOST, block, dtype=torch.uint8).pin_memory()}
    rng = random.Random(block + batch)
    stores = max(4, (1 << 30) // (block * batch))
    batches = [(rng.sample(range(2 * HOST), batch), rng.sample(range(HOST), batch)) for _ in range(stores)]
    raw = BatchCopier(gpu, cpu, torch.cuda.Stream())
    backend = Marked(GuardPolicy.RAISE)
    backend.init(gpu, cpu, dev, torch.cuda.Stream(), torch.cuda.Stream())
    rb.pin_backend_threads(backend, copy_cpu, request_cpu)
    compute = torch.cuda.Stream()
    for rep in range(4):
        # raw, with marks
        stats["plan"].clear()
        stats["call"].clear()
        marks = []
        torch.cuda.synchronize()
        t = time.perf_counter()
        for s, d in batches:
            a = torch.cuda.Event(enable_timing=True)
            b = torch.cuda.Event(enable_timing=True)
            a.record(raw.stream)
            raw.copy(s, d)
            b.record(raw.stream)
            marks.append((a, b))
        raw.stream.synchronize()
        raw_wall = time.perf_counter() - t
        rspan, rbusy, rgap, rmax = gpu_gaps(marks)
        rplan, rcall = sum(stats["plan"]), sum(stats["call"])
        # ordered
        stats["plan"].clear()
        stats["call"].clear()
        backend.marks.clear()
        backend.issue.clear()
        events = []
        rb.pin(0, request_cpu)
        torch.cuda.synchronize()
        t = time.perf_counter()
        first_launch_done = None
        with torch.cuda.stream(compute):
            for i, (s, d) in enumerate(batches):
                backend.launch_copy(s, d, True, i, events)
        launch_end = time.perf_counter() - t
        backend.drain()
        events[-1][1].synchronize()
        ord_wall = time.perf_counter() - t
        rb.pin(0, copy_cpu)
        ospan, obusy, ogap, omax = gpu_gaps(backend.marks)
        oplan, ocall, oissue = sum(stats["plan"]), sum(stats["call"]), sum(backend.issue)
        print(
            f"{block >> 10}K x {batch} rep {rep}: raw wall {raw_wall * 1e3:.2f} ms "
            f"(gpu span {rspan:.2f}, busy {rbusy:.2f}, gaps {rgap:.2f}, max gap {rmax:.3f}; "
            f"host plan {rplan * 1e3:.2f}, copy() {rcall * 1e3:.2f}) | "
            f"ordered wall {ord_wall * 1e3:.2f} ms ratio {raw_wall / ord_wall:.3f} "
            f"(launch loop {launch_end * 1e3:.2f}; groups {len(backend.marks)}; "
            f"gpu span {ospan:.2f}, busy {obusy:.2f}, gaps {ogap:.2f}, max gap {omax:.3f}; "
            f"copy thread: _issue {oissue * 1e3:.2f}, copy() {ocall * 1e3:.2f}, "
            f"plan {oplan * 1e3:.2f})",
            flush=True,
        )
    backend.shutdown()
