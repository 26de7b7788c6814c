"""Backend variants side by side, each window bracketed by raw windows (as the sweep does), on
the rows a change was meant to move. Prints each variant's median paired ratio to raw and the
range over the repeats.

`--probe handover` ran against commit 271922f: the hand-over backlog at 64, 16 and 8 queued
requests, and 1% verification at 64 and 16. `--probe verify-wait` ran against commit 8eafab9
(the runtime of d542ac6, whose verify thread slept on a blocking-sync staged event): that event
against a timing-free one polled with cuEventQuery between 50 µs sleeps. Outputs in
benchmarks/results/probes-h200/. To rerun: `git checkout COMMIT && PYTHONPATH=. python3
benchmarks/probes/paired_variants.py --probe NAME`.
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import runtime_bench as rb

from kvguard.runtime import BatchCopier, GuardPolicy, OrderedCopyBackend


def with_backlog(backlog: int) -> type[OrderedCopyBackend]:
    return type(f"Backlog{backlog}", (OrderedCopyBackend,), {"handover_backlog": backlog})


def poll_until_complete(event: int) -> int:
    from cuda.bindings import driver as cu

    handle = cu.CUevent(event)
    while True:
        (result,) = cu.cuEventQuery(handle)
        if int(result) != 600:  # CUDA_ERROR_NOT_READY
            return int(result)
        time.sleep(50e-6)


class PolledStaged(OrderedCopyBackend):
    """The staged event made timing-free (not blocking-sync) and polled, not synchronized on."""

    def init(self, *args: Any) -> None:
        super().init(*args)
        calls = self._event_calls
        assert calls is not None
        self._event_calls = dataclasses.replace(
            calls, create_blocking=calls.create, synchronize=poll_until_complete)


PROBES: dict[str, tuple[list[tuple[int, int]], int, int, dict[str, Any]]] = {
    "handover": (
        [(16 << 10, 1), (64 << 10, 1), (16 << 10, 128), (64 << 10, 128), (64 << 10, 16),
         (256 << 10, 16), (1 << 20, 16), (2 << 20, 16), (1 << 20, 1024)], 2 << 20, 7,
        {**{f"ord{n}": (with_backlog(n), 0.0) for n in (64, 16, 8)},
         "ver64": (OrderedCopyBackend, 0.01), "ver16": (with_backlog(16), 0.01)},
    ),
    "verify-wait": (
        [(16 << 10, 128), (64 << 10, 128), (16 << 10, 16), (64 << 10, 1024)], 64 << 10, 9,
        {"ord": (OrderedCopyBackend, 0.0), "ver": (OrderedCopyBackend, 0.01),
         "ver_nb_poll": (PolledStaged, 0.01)},
    ),
}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--probe", choices=list(PROBES), required=True)
    configs, largest, repeats, variants = PROBES[parser.parse_args().probe]
    device = torch.device("cuda", 0)
    rb.HOST_BLOCKS = 1024
    pattern = torch.randint(0, 256, (16 << 10,), dtype=torch.uint8, device=device)
    gpu_bytes = pattern.repeat(2 * 1024 * largest // (16 << 10))
    host_bytes = torch.empty(1024 * largest, dtype=torch.uint8).pin_memory()
    compute = torch.cuda.Stream()
    low, _ = torch.cuda.Stream.priority_range()
    for block, batch in configs:
        gpu = {"kv": gpu_bytes[: 2048 * block].view(2048, block)}
        cpu = {"kv": host_bytes[: 1024 * block].view(1024, block)}
        raw = BatchCopier(gpu, cpu, torch.cuda.Stream(priority=low))
        backends = {}
        for name, (kind, fraction) in variants.items():
            backend = (kind(GuardPolicy.RAISE, verify_fraction=fraction, verify_seed=0)
                       if fraction else kind(GuardPolicy.RAISE))
            backend.init(gpu, cpu, device, torch.cuda.Stream(priority=low),
                         torch.cuda.Stream(priority=low))
            backends[name] = backend
        batches = rb.batches_for(block, batch)
        rb.time_raw(raw, batches[:3])
        for backend in backends.values():
            rb.time_backend(backend, compute, batches[:3])
        ratios: dict[str, list[float]] = {name: [] for name in backends}
        for _ in range(repeats):
            for name, backend in backends.items():
                before = rb.time_raw(raw, batches)
                seconds = rb.time_backend(backend, compute, batches)
                after = rb.time_raw(raw, batches)
                ratios[name].append((before + after) / 2 / seconds)
        print(f"{block >> 10} KiB x {batch} ({len(batches)} stores): " + ", ".join(
            f"{name} {statistics.median(v):.3f} [{min(v):.2f}-{max(v):.2f}]"
            for name, v in ratios.items()), flush=True)
        for backend in backends.values():
            backend.shutdown()


if __name__ == "__main__":
    main()
