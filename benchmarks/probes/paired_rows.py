"""What the paired-window probes share: the sweep's CPU pinning, one row's caches, and windows
bracketed by raw ones (raw, variant, raw), as `runtime_bench.py` times them.

A probe builds its variants with `compare`, which returns each variant's paired ratios to raw
(the mean of the two raw windows around a variant's window over the variant's, one per repeat)
and the started backends, for the probe to read their counters and shut them down.
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import runtime_bench as rb

from kvguard.runtime import BatchCopier

DEVICE = torch.device("cuda", 0)
Caches = dict[str, torch.Tensor]


class Pinned:
    """The sweep's CPUs: the steadiest fast one runs raw's loop and every copy thread, the next
    one the requesting and verify threads. The calling thread starts on the first."""

    def __init__(self) -> None:
        speeds = rb.cpu_speeds(rounds=2)
        ranked = sorted(speeds, key=lambda cpu: max(speeds[cpu]))
        self.copy_cpu, self.request_cpu = ranked[0], ranked[1]
        rb.pin(0, self.copy_cpu)

    def start(self, backend: Any, gpu: Caches, cpu: Caches) -> Any:
        """`init` the backend on streams of its own and pin its threads."""
        backend.init(gpu, cpu, DEVICE, torch.cuda.Stream(), torch.cuda.Stream())
        rb.pin_backend_threads(backend, self.copy_cpu, self.request_cpu)
        return backend

    def window(self, backend: Any, compute: torch.cuda.Stream, batches: rb.Batches) -> float:
        """One backend window, launched from the requesting CPU."""
        rb.pin(0, self.request_cpu)
        try:
            return rb.time_backend(backend, compute, batches)
        finally:
            rb.pin(0, self.copy_cpu)


def caches(block: int) -> tuple[Caches, Caches]:
    """One tensor of twice the sweep's host blocks on the GPU, one of its host blocks pinned
    (the ids `runtime_bench.batches_for` draws)."""
    gpu = {"kv": torch.zeros(2 * rb.HOST_BLOCKS, block, dtype=torch.uint8, device=DEVICE)}
    cpu = {"kv": torch.zeros(rb.HOST_BLOCKS, block, dtype=torch.uint8).pin_memory()}
    return gpu, cpu


def paired(raw: BatchCopier, batches: rb.Batches, window: Callable[[str], float],
           names: Sequence[str], repeats: int) -> dict[str, list[float]]:
    """Each repeat times every variant once between two raw windows of its own, the order of
    the variants rotating from repeat to repeat."""
    names = list(names)
    ratios: dict[str, list[float]] = {name: [] for name in names}
    for repeat in range(repeats):
        shift = repeat % len(names)
        for name in names[shift:] + names[:shift]:
            before = rb.time_raw(raw, batches)
            seconds = window(name)
            after = rb.time_raw(raw, batches)
            ratios[name].append((before + after) / 2 / seconds)
    return ratios


@dataclass
class Row:
    """One row: its started backends, raw's copier, the row's stores and, once measured, each
    variant's paired ratios."""

    pinned: Pinned
    backends: dict[str, Any]
    raw: BatchCopier
    batches: rb.Batches
    compute: torch.cuda.Stream
    ratios: dict[str, list[float]] = field(default_factory=dict)

    def window(self, name: str) -> float:
        """One window of variant `name`."""
        return self.pinned.window(self.backends[name], self.compute, self.batches)

    def heading(self, block: int, batch: int, note: str = "") -> str:
        """'16K x 1024 (64 stores, raw 67.1 ms; note)', raw's window timed once more."""
        raw_ms = rb.time_raw(self.raw, self.batches) * 1e3
        extra = f"; {note}" if note else ""
        return f"{block >> 10}K x {batch} ({len(self.batches)} stores, raw {raw_ms:.1f} ms{extra})"

    def shutdown(self) -> None:
        for backend in self.backends.values():
            backend.shutdown()


def prepare(pinned: Pinned, block: int, batch: int, names: Sequence[str],
            make: Callable[[str], Any], stores: int | None = None) -> Row:
    """The variants `make(name)` builds (not started) on one row, started and warmed up with a
    short window each; `stores` a window (default: the sweep's, about 1 GiB)."""
    gpu, cpu = caches(block)
    batches = rb.batches_for(block, batch, stores)
    raw = BatchCopier(gpu, cpu, torch.cuda.Stream())
    backends = {name: pinned.start(make(name), gpu, cpu) for name in names}
    compute = torch.cuda.Stream()
    rb.time_raw(raw, batches[:3])
    for backend in backends.values():
        pinned.window(backend, compute, batches[:3])
    return Row(pinned, backends, raw, batches, compute)


def compare(pinned: Pinned, block: int, batch: int, names: Sequence[str],
            make: Callable[[str], Any], repeats: int, stores: int | None = None) -> Row:
    """`prepare`, then the variants in paired windows."""
    row = prepare(pinned, block, batch, names, make, stores)
    row.ratios = paired(row.raw, row.batches, row.window, names, repeats)
    return row


def medians(ratios: dict[str, list[float]], range_digits: int = 3) -> str:
    """'name median [lowest-highest]' per variant."""
    return ", ".join(f"{name} {statistics.median(r):.3f} "
                     f"[{min(r):.{range_digits}f}-{max(r):.{range_digits}f}]"
                     for name, r in ratios.items())


def verify_figures(row: Row, names: Sequence[str], label: str = "checks/verified/cpu",
                   mismatches: bool = True) -> str:
    """'; LABEL name checks/verified/CPU ms[/mm mismatches], ...' of verified variants."""
    return f"; {label} " + ", ".join(
        f"{n} {row.backends[n].verify_stats['checks']}/{row.backends[n].counters['verified']}"
        f"/{row.backends[n].verify_stats['cpu_s'] * 1e3:.0f}ms"
        + (f"/mm{row.backends[n].counters['mismatches']}" if mismatches else "")
        for n in names)


def sweep(rows: Sequence[tuple[int, int]], names: Sequence[str], make: Callable[[str], Any],
          repeats: int, note: Callable[[Row], str] = lambda row: "") -> None:
    """Each row's variants in paired windows on the sweep's pinned CPUs: one line a row,
    '16K x 1024: medians' and `note(row)`, then the total seconds."""
    began = time.time()
    pinned = Pinned()
    for block, batch in rows:
        row = compare(pinned, block, batch, names, make, repeats)
        print(f"{block >> 10}K x {batch}: {medians(row.ratios)}{note(row)}", flush=True)
        row.shutdown()
    print(f"total {time.time() - began:.0f} s", flush=True)
