"""Where 1% verification's cost goes now that a kernel compares: the committed path (the kernel
reads the host copies in place, over the bus) against the same with the host copies first
brought to GPU scratch by a host-to-device batch copy on the compare stream (the kernel then
reads GPU memory only), and against no compare at all (the sampled group is handed off and
reported once its completion event passed). Paired, pinned as the sweep.

Ran against the runtime of c58711b; output in benchmarks/results/probes-h200/verify_dma.txt.
Usage: `cd benchmarks/probes && PYTHONPATH=../.. python3 verify_dma.py [REPEATS]`.
"""

from __future__ import annotations

import sys
from typing import Any

import torch
from paired_rows import sweep, verify_figures

from kvguard.runtime import BatchCopier, GuardPolicy, OrderedCopyBackend, driver
from kvguard.runtime.batch_copy import CacheLayout
from kvguard.runtime.verify import plan_pairs


class NoCompare(OrderedCopyBackend):
    def _differing(self, samples: Any, after: int) -> list[int]:
        if after:
            self._wait_for(after)
        return []


class DmaVerified(OrderedCopyBackend):
    _scratch_blocks = 0

    def _differing(self, samples: Any, after: int) -> list[int]:
        if not after:
            return super()._differing(samples, after)
        n = len(samples)
        if n > self._scratch_blocks:
            cap = max(n, 2 * self._scratch_blocks)
            scratch = {name: torch.empty((cap, *t.shape[1:]), dtype=t.dtype, device=self._device)
                       for name, t in self._cpu_caches.items()}
            self._scratch_copier = BatchCopier(self._cpu_caches, scratch, self._compare_stream)
            self._scratch_bases = CacheLayout.of(scratch).base_addresses
            self._scratch_blocks = cap
        calls, comparer = self._event_calls, self._comparer
        stream = self._compare_stream.cuda_stream
        driver.check(calls.wait(stream, after), "wait")
        self._scratch_copier.copy([s.dst for s in samples], list(range(n)))
        comparer.enqueue(stream, *plan_pairs(
            self._gpu_layout.base_addresses, self._scratch_bases, self._gpu_layout.block_bytes,
            [s.src for s in samples], list(range(n))))
        driver.check(calls.record(self._compared, stream), "record")
        self._wait_for(self._compared)
        return sorted({pair % n for pair in comparer.differing()})


KINDS = {"ordered": OrderedCopyBackend, "verified": OrderedCopyBackend, "dma": DmaVerified,
         "no_compare": NoCompare}
NAMES = list(KINDS)
ROWS = ((64 << 10, 1024), (64 << 10, 128), (256 << 10, 128), (1024 << 10, 128),
        (2048 << 10, 1024), (256 << 10, 16), (16 << 10, 1024))


def make(name: str) -> OrderedCopyBackend:
    return KINDS[name](GuardPolicy.RAISE, verify_fraction=0.0 if name == "ordered" else 0.01,
                       verify_seed=0)


def main() -> None:
    sweep(ROWS, NAMES, make, repeats=int(sys.argv[1]) if len(sys.argv) > 1 else 20,
          note=lambda row: verify_figures(row, NAMES[1:]))


if __name__ == "__main__":
    main()
