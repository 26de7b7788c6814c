"""Does the small-descriptor copy state follow the GPU's clocks or its PCIe link? Raw 16 KiB x
1,024 windows timed with events through phases, while nvidia-smi samples the GPU.

`python3 benchmarks/probes/gpu_state.py clock OUT`: SM/memory clocks, P-state and throttle
reasons every 50 ms (output clock_state.txt, clock_state-clocks.csv); `... link OUT`: PCIe link
generation and width every 20 ms (link_state.txt, link_state-clocks.csv). Each probe runs its
own phases.
"""

import random
import statistics
import subprocess
import sys
import time

import torch

sys.path.insert(0, ".")
from kvguard.runtime import BatchCopier

# per probe: what nvidia-smi samples, how often (ms), and the phases the windows run through
PROBES = {
    "clock": (
        "timestamp,clocks.sm,clocks.mem,clocks.video,power.draw,pstate,clocks_throttle_reasons.active",
        "50",
        ("idle", "busy-sleep-kernel", "idle-gaps", "idle"),
    ),
    "link": (
        "timestamp,pcie.link.gen.gpucurrent,pcie.link.gen.current,"
        "pcie.link.width.current,clocks.sm,power.draw",
        "20",
        ("idle", "idle-gaps", "idle", "big-then-small", "idle"),
    ),
}
fields, interval, phases = PROBES[sys.argv[1]]
out = sys.argv[2]
dev = torch.device("cuda", 0)
HOST = 1024
block, batch, stores = 16 << 10, 1024, 8
gpu = {"kv": torch.zeros(2 * HOST, block, dtype=torch.uint8, device=dev)}
cpu = {"kv": torch.zeros(HOST, block, dtype=torch.uint8).pin_memory()}
c = BatchCopier(gpu, cpu, torch.cuda.Stream())
rng = random.Random(1)
batches = [(rng.sample(range(2 * HOST), batch), rng.sample(range(HOST), batch)) for _ in range(stores)]
smi = subprocess.Popen(
    [
        "nvidia-smi",
        f"--query-gpu={fields}",
        "--format=csv,noheader",
        "-lms",
        interval,
    ],
    stdout=open(f"{out}/clocks.csv", "w"),  # noqa: SIM115 - nvidia-smi writes it all run long
)
time.sleep(1.0)
t0 = time.time()


def window():
    a = torch.cuda.Event(enable_timing=True)
    b = torch.cuda.Event(enable_timing=True)
    a.record(c.stream)
    for s, d in batches:
        c.copy(s, d)
    b.record(c.stream)
    b.synchronize()
    return a.elapsed_time(b) * 1000 / stores


busy_stream = torch.cuda.Stream()
for phase in phases:
    res = []
    for _i in range(60):
        if phase == "busy-sleep-kernel":
            with torch.cuda.stream(busy_stream):
                torch.cuda._sleep(20_000_000)
        if phase == "big-then-small":
            for _ in range(4):
                c.copy(list(range(512)), list(range(512)))
        if phase == "idle-gaps":
            time.sleep(0.05)
        res.append((time.time() - t0, window()))
    torch.cuda.synchronize()
    vals = [v for _, v in res]
    slow = sum(v > 850 for v in vals)
    print(
        f"{phase}: median {statistics.median(vals):.0f} us/store, slow {slow}/60, windows: "
        + " ".join(f"{t:.2f}:{v:.0f}" for t, v in res),
        flush=True,
    )
time.sleep(0.5)
smi.terminate()
print("t0 wall", t0)
