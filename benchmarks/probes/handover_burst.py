"""A burst of large stores: does handing the GIL to the copy thread from the second queued
request (once `handover_burst_bytes` wait) start the copies sooner than waiting for 16 queued
requests? Variants: `before` (the 16-request rule alone), `burst32` and `burst64` (the second
rule at 32 and 64 MiB), `verified32` (1% verification with it at 32 MiB).

Why: on 64 KiB x 1,024 the copy thread's first driver call began 0.6 to 1.0 ms into a window,
when the burst's 16 launches ended, while raw's first copy starts at once; the copies
themselves took no longer than raw's (../results/probes-h200/slow_mode.txt).

Pinned as the sweep, paired with raw windows. Output in
benchmarks/results/probes-h200/handover_burst.txt.
"""

from __future__ import annotations

import sys

from paired_rows import sweep, verify_figures

from kvguard.runtime import GuardPolicy, OrderedCopyBackend

NEVER = 1 << 62
VARIANTS = {"before": (NEVER, 0.0), "burst32": (32 << 20, 0.0), "burst64": (64 << 20, 0.0),
            "verified32": (32 << 20, 0.01)}
ROWS = ((64 << 10, 1024), (64 << 10, 128), (16 << 10, 1024), (256 << 10, 128),
        (1024 << 10, 16), (2048 << 10, 1024), (256 << 10, 1), (16 << 10, 128))


def make(name: str) -> OrderedCopyBackend:
    burst_bytes, fraction = VARIANTS[name]
    backend = OrderedCopyBackend(GuardPolicy.RAISE, verify_fraction=fraction, verify_seed=0)
    backend.handover_burst_bytes = burst_bytes
    return backend


def main() -> None:
    sweep(ROWS, list(VARIANTS), make, repeats=int(sys.argv[1]) if len(sys.argv) > 1 else 15,
          note=lambda row: verify_figures(row, ["verified32"]))


if __name__ == "__main__":
    main()
