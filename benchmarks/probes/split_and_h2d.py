"""(1) The two changes of this round against the code without them, in paired windows pinned as
the sweep: a lone group above first_group_bytes to an idle stream split into two driver calls,
and launch_copy keeping the caller's lists (old: tuples copied, one call). Ordered and 1%
verified, 10 repeats. (2) Whether host-to-device traffic costs device-to-host bandwidth: raw
stores alone, with 1% more bytes device-to-host on their stream (today's verification
staging), and with 1% (and 2%) host-to-device on another stream, paired.

Ran against commit c171d5c; output in benchmarks/results/probes-h200/split_and_h2d.txt."""

import time
from typing import Any

import torch
from paired_rows import DEVICE, Pinned, caches, compare, medians, paired, rb

from kvguard.runtime import BatchCopier, GuardPolicy, OrderedCopyBackend


class Old(OrderedCopyBackend):
    def launch_copy(self, src: Any, dst: Any, *args: Any, **kwargs: Any) -> None:
        super().launch_copy(tuple(src), tuple(dst), *args, **kwargs)

    def _issue_blocks(self, copier: Any, src: Any, dst: Any, plans: Any) -> None:
        self._issue_copy(copier, src, dst, None, plans)


def make(name: str) -> OrderedCopyBackend:
    cls = Old if name.startswith("old") else OrderedCopyBackend
    return cls(GuardPolicy.RAISE, verify_fraction=0.01 if "verified" in name else 0.0, verify_seed=0)


NAMES = ["new", "old", "new_verified", "old_verified"]
ROWS = ((64 << 10, 1024), (64 << 10, 128), (256 << 10, 128), (256 << 10, 1024), (1 << 20, 128),
        (2 << 20, 128), (1 << 20, 16), (16 << 10, 1024), (256 << 10, 16), (2 << 20, 1024))
pinned = Pinned()
for block, batch in ROWS:
    row = compare(pinned, block, batch, NAMES, make, repeats=10)
    print(f"{block >> 10}K x {batch} ({len(row.batches)} stores): {medians(row.ratios)}", flush=True)
    row.shutdown()

print("-- host-to-device beside device-to-host (raw stores, paired against raw alone)")
SIDE = ["alone", "d2h_1pct", "h2d_1pct", "h2d_2pct"]
for block, batch in ((1 << 20, 128), (256 << 10, 1024), (2 << 20, 16), (256 << 10, 128)):
    gpu, cpu = caches(block)
    batches = rb.batches_for(block, batch)
    raw = BatchCopier(gpu, cpu, torch.cuda.Stream())
    side = torch.cuda.Stream()
    one = max(1, block * batch // 100)  # 1% of a store's bytes
    gpu_rows = torch.empty(2 * one, dtype=torch.uint8, device=DEVICE)
    host_rows = torch.empty(2 * one, dtype=torch.uint8).pin_memory()
    flat_gpu, flat_cpu = gpu["kv"].view(-1), cpu["kv"].view(-1)

    def window(name: str, raw: BatchCopier = raw, batches: rb.Batches = batches,
               side: torch.cuda.Stream = side, one: int = one, gpu_rows: torch.Tensor = gpu_rows,
               host_rows: torch.Tensor = host_rows, flat_gpu: torch.Tensor = flat_gpu,
               flat_cpu: torch.Tensor = flat_cpu) -> float:
        """Raw stores, each followed by 1% more bytes device-to-host on its stream (as
        verification's staging) or 1% or 2% host-to-device on another stream behind it."""
        torch.cuda.synchronize()
        start = time.perf_counter()
        for src, dst in batches:
            raw.copy(src, dst)
            if name == "d2h_1pct":
                with torch.cuda.stream(raw.stream):
                    host_rows[:one].copy_(flat_gpu[:one], non_blocking=True)
            elif name.startswith("h2d"):
                size = one if name == "h2d_1pct" else 2 * one
                side.wait_stream(raw.stream)  # behind the store, as a check would be
                with torch.cuda.stream(side):
                    gpu_rows[:size].copy_(flat_cpu[:size], non_blocking=True)
        raw.stream.synchronize()
        side.synchronize()
        return time.perf_counter() - start

    for name in SIDE:
        window(name)
    print(f"{block >> 10}K x {batch}: {medians(paired(raw, batches, window, SIDE, 8))}", flush=True)
