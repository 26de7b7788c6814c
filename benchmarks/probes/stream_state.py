"""Does a small-block batch copy's speed depend on which stream it runs on?"""

import os
import random
import statistics
import sys

import torch

sys.path.insert(0, ".")
from kvguard.runtime import BatchCopier

dev = torch.device("cuda", 0)
HOST = 1024


def run(block, batch, nstreams=12, rounds=6, stores=8):
    gpu = {"kv": torch.zeros(2 * HOST, block, dtype=torch.uint8, device=dev)}
    cpu = {"kv": torch.zeros(HOST, block, dtype=torch.uint8).pin_memory()}
    streams = [torch.cuda.Stream() for _ in range(nstreams)]
    copiers = [BatchCopier(gpu, cpu, s) for s in streams]
    rng = random.Random(block + batch)
    batches = [(rng.sample(range(2 * HOST), batch), rng.sample(range(HOST), batch)) for _ in range(stores)]
    per = {i: [] for i in range(nstreams)}
    for r in range(rounds):
        order = list(range(nstreams))
        random.Random(r).shuffle(order)
        for i in order:
            c = copiers[i]
            for s, d in batches[:2]:
                c.copy(s, d)
            torch.cuda.synchronize()
            a = torch.cuda.Event(enable_timing=True)
            b = torch.cuda.Event(enable_timing=True)
            a.record(c.stream)
            for s, d in batches:
                c.copy(s, d)
            b.record(c.stream)
            b.synchronize()
            per[i].append(a.elapsed_time(b) * 1000 / stores)
    print(
        f"{block >> 10} KiB x {batch}: us/store per stream (median of {rounds} rounds, min-max)", flush=True
    )
    for i in range(nstreams):
        v = per[i]
        print(
            f"  stream {i:2d} handle {streams[i].cuda_stream:#x}: {statistics.median(v):8.1f}  "
            f"[{min(v):7.1f}-{max(v):7.1f}]  {' '.join(f'{x:.0f}' for x in v)}",
            flush=True,
        )


print(
    torch.cuda.get_device_name(0),
    "CUDA_DEVICE_MAX_CONNECTIONS",
    os.environ.get("CUDA_DEVICE_MAX_CONNECTIONS"),
)
run(16 << 10, 1024)
run(16 << 10, 128, stores=32)
run(64 << 10, 1024, stores=4)
run(2 << 20, 16, stores=8)
# The same stream, with a second process-wide stream busy on loads? skip. Priorities:
lo, hi = torch.cuda.Stream.priority_range()
print("priority range", lo, hi)
