"""Does a per-batch cuStreamWaitEvent (on an event already complete) or event record cost bandwidth?"""

import random
import statistics
import sys
import time

import torch

sys.path.insert(0, ".")
from kvguard.runtime import BatchCopier, driver

dev = torch.device("cuda", 0)
calls = driver.resolve_event_calls()
compute = torch.cuda.Stream()
HOST = 1024
for block, batch in ((64 << 10, 1024), (16 << 10, 1024), (256 << 10, 128), (2 << 20, 16)):
    gpu = {"kv": torch.zeros(2 * HOST, block, dtype=torch.uint8, device=dev)}
    cpu = {"kv": torch.zeros(HOST, block, dtype=torch.uint8).pin_memory()}
    c = BatchCopier(gpu, cpu, torch.cuda.Stream())
    rng = random.Random(1)
    stores = max(4, (1 << 30) // (block * batch))
    batches = [(rng.sample(range(2 * HOST), batch), rng.sample(range(HOST), batch)) for _ in range(stores)]
    _, compute_ev = calls.create()
    _, done_ev = calls.create()

    def window(wait, record, c=c, batches=batches, compute_ev=compute_ev, done_ev=done_ev):
        torch.cuda.synchronize()
        t = time.perf_counter()
        for s, d in batches:
            if wait:
                calls.record(compute_ev, compute.cuda_stream)
                calls.wait(c.stream.cuda_stream, compute_ev)
            c.copy(s, d)
            if record:
                calls.record(done_ev, c.stream.cuda_stream)
        c.stream.synchronize()
        return time.perf_counter() - t

    variants = {"wait": (True, False), "record": (False, True), "wait+record": (True, True)}
    ratios = {k: [] for k in variants}
    window(False, False)
    for _rep in range(12):
        for name, (w, r) in variants.items():
            a = window(False, False)
            v = window(w, r)
            b = window(False, False)
            if abs(b / a - 1) <= 0.05:
                ratios[name].append((a + b) / 2 / v)
    print(
        f"{block >> 10}K x {batch}: "
        + ", ".join(
            f"{k} {statistics.median(v):.3f} ({len(v)})" if v else f"{k} n/a" for k, v in ratios.items()
        ),
        flush=True,
    )
