"""Is a copy loop slower on a second thread than on the main thread, same CPU, same work?

raw: time_raw on the main thread (copy_cpu). thread_loop: the same loop on a persistent worker
thread pinned on copy_cpu, started by an Event; the main thread waits (pinned on request_cpu).
Reports median ratio raw/thread_loop and the loops' host time in copy() per store.
"""

import os
import statistics
import threading
import time

import torch
from paired_rows import Pinned, rb

from kvguard.runtime import BatchCopier

print("MALLOC_ARENA_MAX", os.environ.get("MALLOC_ARENA_MAX"), flush=True)
pinned = Pinned()  # this thread on the copy CPU
copy_cpu, request_cpu = pinned.copy_cpu, pinned.request_cpu
dev = torch.device("cuda", 0)
HOST = 1024


def loop(copier, batches, calls):
    torch.cuda.synchronize()
    t = time.perf_counter()
    for s, d in batches:
        a = time.perf_counter()
        copier.copy(s, d)
        calls.append(time.perf_counter() - a)
    copier.stream.synchronize()
    return time.perf_counter() - t


class Worker:
    def __init__(self):
        self.go, self.done, self.job = threading.Event(), threading.Event(), None
        self.t = threading.Thread(target=self.run, daemon=True)
        self.t.start()
        rb.pin(self.t.native_id, copy_cpu)

    def run(self):
        torch.cuda.set_device(dev)
        while True:
            self.go.wait()
            self.go.clear()
            self.result = loop(*self.job)
            self.done.set()

    def time(self, copier, batches, calls):
        self.job = (copier, batches, calls)
        self.done.clear()
        rb.pin(0, request_cpu)
        self.go.set()
        self.done.wait()
        rb.pin(0, copy_cpu)
        return self.result


w = Worker()
for block, batch in ((16 << 10, 1024), (16 << 10, 128), (64 << 10, 128), (64 << 10, 1024)):
    gpu = {"kv": torch.zeros(2 * HOST, block, dtype=torch.uint8, device=dev)}
    cpu = {"kv": torch.zeros(HOST, block, dtype=torch.uint8).pin_memory()}
    batches = rb.batches_for(block, batch, stores=max(4, (1 << 30) // (block * batch) // 2))
    raw = BatchCopier(gpu, cpu, torch.cuda.Stream())
    other = BatchCopier(gpu, cpu, torch.cuda.Stream())
    loop(raw, batches[:3], [])
    w.time(other, batches[:3], [])
    ratios, main_calls, thread_calls = [], [], []
    for _rep in range(10):
        before = loop(raw, batches, main_calls)
        s = w.time(other, batches, thread_calls)
        after = loop(raw, batches, main_calls)
        ratios.append((before + after) / 2 / s)
    print(
        f"{block >> 10}K x {batch}: raw/thread_loop {statistics.median(ratios):.3f} "
        f"[{min(ratios):.2f}-{max(ratios):.2f}]; copy() host us per store: "
        f"main {statistics.median(main_calls) * 1e6:.1f}, "
        f"thread {statistics.median(thread_calls) * 1e6:.1f}",
        flush=True,
    )
