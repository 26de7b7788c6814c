"""Do the guard's event calls wait for another thread's cuMemcpyBatchAsync (a driver lock)?"""

import random
import sys
import threading
import time

import torch

sys.path.insert(0, ".")
from kvguard.runtime import BatchCopier, driver

dev = torch.device("cuda", 0)
HOST = 1024
block, batch = 16 << 10, 1024
gpu = {"kv": torch.zeros(2 * HOST, block, dtype=torch.uint8, device=dev)}
cpu = {"kv": torch.zeros(HOST, block, dtype=torch.uint8).pin_memory()}
c = BatchCopier(gpu, cpu, torch.cuda.Stream())
rng = random.Random(1)
batches = [(rng.sample(range(2 * HOST), batch), rng.sample(range(HOST), batch)) for _ in range(8)]
calls = driver.resolve_event_calls()
compute = torch.cuda.Stream()
other = torch.cuda.Stream()
_, ev = calls.create()
_, ev2 = calls.create()
calls.record(ev, other.cuda_stream)
torch.cuda.synchronize()

stop = threading.Event()
in_call = [0.0]


def copier():
    torch.cuda.set_device(dev)
    n = 0
    t = 0.0
    while not stop.is_set():
        s, d = batches[n % 8]
        n += 1
        a = time.perf_counter()
        c.copy(s, d)
        t += time.perf_counter() - a
        if n % 8 == 0:
            c.stream.synchronize()
    in_call[0] = t


def measure(label):
    res = {"query": [], "record": [], "wait": []}
    for _i in range(3000):
        a = time.perf_counter()
        calls.query(ev)
        b = time.perf_counter()
        calls.record(ev2, compute.cuda_stream)
        c2 = time.perf_counter()
        calls.wait(other.cuda_stream, ev2)
        d = time.perf_counter()
        res["query"].append(b - a)
        res["record"].append(c2 - b)
        res["wait"].append(d - c2)
        time.sleep(20e-6)
    for k, v in res.items():
        v.sort()
        print(
            f"{label}: {k} p50 {v[len(v) // 2] * 1e6:.2f} us p90 {v[len(v) * 9 // 10] * 1e6:.2f} "
            f"p99 {v[len(v) * 99 // 100] * 1e6:.2f} max {v[-1] * 1e6:.1f}",
            flush=True,
        )


measure("alone")
# the copier in a thread: ctypes CFUNCTYPE batch call releases the GIL
t = threading.Thread(target=copier)
t.start()
time.sleep(0.05)
measure("while another thread is in cuMemcpyBatchAsync (16K x 1024)")
stop.set()
t.join()
torch.cuda.synchronize()
