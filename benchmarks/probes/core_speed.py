"""Is host-bound copy work faster on some CPUs than others (and does it stay so)?"""

import os
import random
import subprocess
import sys
import time

import torch

sys.path.insert(0, ".")
from kvguard.runtime import BatchCopier

print(subprocess.run(["lscpu", "-e"], capture_output=True, text=True).stdout, flush=True)
cpus = sorted(os.sched_getaffinity(0))
dev = torch.device("cuda", 0)
HOST = 1024
block = 64 << 10
gpu = {"kv": torch.zeros(2 * HOST, block, dtype=torch.uint8, device=dev)}
cpu_cache = {"kv": torch.zeros(HOST, block, dtype=torch.uint8).pin_memory()}
c = BatchCopier(gpu, cpu_cache, torch.cuda.Stream())
rng = random.Random(1)
singles = [([rng.randrange(2 * HOST)], [rng.randrange(HOST)]) for _ in range(300)]
small = [(rng.sample(range(2 * HOST), 128), rng.sample(range(HOST), 128)) for _ in range(40)]


def loop():
    t = time.perf_counter()
    x = 0
    for i in range(300_000):
        x += i * i
    return time.perf_counter() - t


def stores(batches):
    torch.cuda.synchronize()
    t = time.perf_counter()
    for s, d in batches:
        c.copy(s, d)
    host = time.perf_counter() - t
    c.stream.synchronize()
    return host / len(batches), (time.perf_counter() - t) / len(batches)


results = {cpu: [] for cpu in cpus}
for _rnd in range(3):
    for cpu in cpus:
        os.sched_setaffinity(0, {cpu})
        time.sleep(0.01)
        loop_s = min(loop() for _ in range(3))
        h1, w1 = stores(singles)
        h2, w2 = stores(small)
        results[cpu].append((loop_s * 1e3, h1 * 1e6, w1 * 1e6, h2 * 1e6, w2 * 1e6))
os.sched_setaffinity(0, set(cpus))
print(
    "cpu | python loop ms (3 rounds) | 64K x 1 host us/store | 64K x 1 wall us/store | "
    "64K x 128 host us/store | 64K x 128 wall us/store"
)
for cpu in cpus:
    cols = list(zip(*results[cpu], strict=False))
    print(f"{cpu:3d} | " + " | ".join(" ".join(f"{v:7.1f}" for v in col) for col in cols), flush=True)
