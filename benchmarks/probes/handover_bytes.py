"""Single-block stores in a burst: the hand-over's 100 µs sleep at 16 queued requests holding
4 MiB held 256 KiB x 1 near 4 MiB per (16 launches + a sleep), about 20 GB/s, under a raw loop
that reached 25 to 28 GB/s on a fast CPU. Variants: `handover_bytes` 4 (committed when it ran), 8 and
16 MiB. Pinned as the sweep, paired with raw windows. Output in
benchmarks/results/probes-h200/handover_bytes.txt.
"""

from __future__ import annotations

import sys

from paired_rows import sweep

from kvguard.runtime import GuardPolicy, OrderedCopyBackend

VARIANTS = {"bytes4M": 4 << 20, "bytes8M": 8 << 20, "bytes16M": 16 << 20}
ROWS = ((256 << 10, 1), (64 << 10, 1), (1024 << 10, 1), (16 << 10, 16), (64 << 10, 16),
        (256 << 10, 16), (16 << 10, 128), (64 << 10, 128))


def make(name: str) -> OrderedCopyBackend:
    backend = OrderedCopyBackend(GuardPolicy.RAISE)
    backend.handover_bytes = VARIANTS[name]
    return backend


def main() -> None:
    sweep(ROWS, list(VARIANTS), make, repeats=int(sys.argv[1]) if len(sys.argv) > 1 else 12)


if __name__ == "__main__":
    main()
