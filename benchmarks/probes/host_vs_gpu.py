"""Small-block stores: is a store bound by the driver call's host time or by the copy engine?"""

import random
import statistics
import sys
import time

import torch

sys.path.insert(0, ".")
from kvguard.runtime import BatchCopier
from kvguard.runtime.batch_copy import plan_block_copies


def steal():
    with open("/proc/stat") as stat:
        fields = stat.readline().split()
    return int(fields[8]), sum(int(x) for x in fields[1:])


dev = torch.device("cuda", 0)
HOST = 1024
for block, batch, n in ((16 << 10, 1024, 40), (16 << 10, 128, 200), (64 << 10, 128, 100)):
    gpu = {"kv": torch.zeros(2 * HOST, block, dtype=torch.uint8, device=dev)}
    cpu = {"kv": torch.zeros(HOST, block, dtype=torch.uint8).pin_memory()}
    c = BatchCopier(gpu, cpu, torch.cuda.Stream())
    rng = random.Random(1)
    batches = [(rng.sample(range(2 * HOST), batch), rng.sample(range(HOST), batch)) for _ in range(n)]
    for rnd in range(6):
        st0 = steal()
        evs = [torch.cuda.Event(enable_timing=True) for _ in range(n + 1)]
        host, plan = [], []
        torch.cuda.synchronize()
        evs[0].record(c.stream)
        for i, (s, d) in enumerate(batches):
            t = time.perf_counter()
            plan_block_copies(c.src_layout, c.dst_layout, s, d)
            t1 = time.perf_counter()
            c.copy(s, d)
            t2 = time.perf_counter()
            evs[i + 1].record(c.stream)
            plan.append(t1 - t)
            host.append(t2 - t1)
        evs[-1].synchronize()
        gpu_t = [evs[i].elapsed_time(evs[i + 1]) * 1000 for i in range(n)]
        st1 = steal()
        # the same calls, each waited for: the GPU time of a store alone
        alone = []
        for s, d in batches[:20]:
            a = torch.cuda.Event(enable_timing=True)
            b = torch.cuda.Event(enable_timing=True)
            torch.cuda.synchronize()
            a.record(c.stream)
            c.copy(s, d)
            b.record(c.stream)
            b.synchronize()
            alone.append(a.elapsed_time(b) * 1000)
        print(
            f"{block >> 10}K x {batch} round {rnd}: host call {statistics.median(host) * 1e6:7.1f} us "
            f"(plan {statistics.median(plan) * 1e6:6.1f}, call-only "
            f"{statistics.median(host) * 1e6 - statistics.median(plan) * 1e6:6.1f}); "
            f"gpu back-to-back {statistics.median(gpu_t):7.1f} us; gpu one call alone (after sync) "
            f"{statistics.median(alone):7.1f} us; "
            f"steal {100 * (st1[0] - st0[0]) / max(1, st1[1] - st0[1]):.1f}%",
            flush=True,
        )
