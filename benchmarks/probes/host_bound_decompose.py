"""Decompose the host-bound loss: driver/GPU cost of a fresh cross-stream wait, threading, backend.

Pinned as the sweep (copying thread on copy_cpu; requesting thread on request_cpu). Variants,
each paired with raw brackets (median raw/variant over 8 repeats):
  fresh_wait      main thread: record an event on the (idle) compute stream, transfer waits on it, copy
  fresh_wait_done + record a completion event after the copy
  old_wait        the wait on one event recorded once at setup
  thread_raw      a copy thread fed by a queue from the requesting thread: copy only
  thread_min      thread_raw + requester records a fresh event, copy thread waits on it + done record
  ordered         OrderedCopyBackend
"""

import queue
import statistics
import threading
import time

import torch
from paired_rows import Pinned, rb

from kvguard.runtime import BatchCopier, GuardPolicy, OrderedCopyBackend, driver

pinned = Pinned()  # this thread on the copy CPU
copy_cpu, request_cpu = pinned.copy_cpu, pinned.request_cpu
dev = torch.device("cuda", 0)
calls = driver.resolve_event_calls()
HOST = 1024
compute = torch.cuda.Stream()
cs = compute.cuda_stream
pool = [calls.create()[1] for _ in range(4096)]
_, old_ev = calls.create()
calls.record(old_ev, cs)
torch.cuda.synchronize()


def main_loop(copier, batches, wait, done, old=False):
    ts = copier.stream.cuda_stream
    torch.cuda.synchronize()
    t = time.perf_counter()
    for i, (s, d) in enumerate(batches):
        if wait:
            ev = old_ev if old else pool[i % 2048]
            if not old:
                calls.record(ev, cs)
            calls.wait(ts, ev)
        copier.copy(s, d)
        if done:
            calls.record(pool[2048 + i % 2048], ts)
    copier.stream.synchronize()
    return time.perf_counter() - t


class CopyThread:
    def __init__(self, copier, minimal):
        self.copier, self.minimal, self.q = copier, minimal, queue.SimpleQueue()
        self.t = threading.Thread(target=self.run, daemon=True)
        self.t.start()
        rb.pin(self.t.native_id, copy_cpu)

    def run(self):
        torch.cuda.set_device(dev)
        ts = self.copier.stream.cuda_stream
        while (item := self.q.get()) is not None:
            if isinstance(item, threading.Event):
                item.set()
                continue
            ev, i, s, d = item
            if ev is not None:
                calls.wait(ts, ev)
            self.copier.copy(s, d)
            if self.minimal:
                calls.record(pool[2048 + i % 2048], ts)

    def time(self, batches):
        torch.cuda.synchronize()
        t = time.perf_counter()
        for i, (s, d) in enumerate(batches):
            ev = None
            if self.minimal:
                ev = pool[i % 2048]
                calls.record(ev, cs)
            self.q.put((ev, i, tuple(s), tuple(d)))
        e = threading.Event()
        self.q.put(e)
        e.wait()
        self.copier.stream.synchronize()
        return time.perf_counter() - t


for block, batch in ((16 << 10, 1024), (16 << 10, 128), (64 << 10, 128), (64 << 10, 1024), (256 << 10, 1024)):
    gpu = {"kv": torch.zeros(2 * HOST, block, dtype=torch.uint8, device=dev)}
    cpu = {"kv": torch.zeros(HOST, block, dtype=torch.uint8).pin_memory()}
    batches = rb.batches_for(block, batch, stores=max(4, (1 << 30) // (block * batch) // 2))
    raw = BatchCopier(gpu, cpu, torch.cuda.Stream())
    other = BatchCopier(gpu, cpu, torch.cuda.Stream())
    threads = {
        n: CopyThread(BatchCopier(gpu, cpu, torch.cuda.Stream()), n == "thread_min")
        for n in ("thread_raw", "thread_min")
    }
    backend = OrderedCopyBackend(GuardPolicy.RAISE)
    backend.init(gpu, cpu, dev, torch.cuda.Stream(), torch.cuda.Stream())
    rb.pin_backend_threads(backend, copy_cpu, request_cpu)

    def on_req(fn, *a):
        rb.pin(0, request_cpu)
        try:
            return fn(*a)
        finally:
            rb.pin(0, copy_cpu)

    variants = {
        "fresh_wait": lambda o=other, b=batches: main_loop(o, b, True, False),
        "fresh_wait_done": lambda o=other, b=batches: main_loop(o, b, True, True),
        "old_wait": lambda o=other, b=batches: main_loop(o, b, True, False, old=True),
        "thread_raw": lambda t=threads, b=batches: on_req(t["thread_raw"].time, b),
        "thread_min": lambda t=threads, b=batches: on_req(t["thread_min"].time, b),
        "ordered": lambda k=backend, b=batches: on_req(rb.time_backend, k, compute, b),
    }
    rb.time_raw(raw, batches[:3])
    for fn in variants.values():
        fn()
    ratios = {n: [] for n in variants}
    for _rep in range(8):
        for n, fn in variants.items():
            before = rb.time_raw(raw, batches)
            s = fn()
            after = rb.time_raw(raw, batches)
            ratios[n].append((before + after) / 2 / s)
    print(
        f"{block >> 10}K x {batch} ({len(batches)} stores, raw {rb.time_raw(raw, batches) * 1e3:.1f} ms): "
        + ", ".join(f"{n} {statistics.median(r):.3f} [{min(r):.2f}-{max(r):.2f}]" for n, r in ratios.items()),
        flush=True,
    )
    for t in threads.values():
        t.q.put(None)
    backend.shutdown()
