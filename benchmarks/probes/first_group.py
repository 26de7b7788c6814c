"""first_group_bytes (the cap on a group issued to an idle transfer stream, and the head of a
lone request's split) at 4, 8 and 16 MiB (committed), ordered and 1% verified. Paired, pinned
as the sweep, 10 repeats.

Ran against commit 4f6572e; output in benchmarks/results/probes-h200/first_group.txt.
"""

from __future__ import annotations

from paired_rows import sweep

from kvguard.runtime import GuardPolicy, OrderedCopyBackend

SIZES = {"4M": 4 << 20, "8M": 8 << 20, "16M": 16 << 20}
NAMES = [f"{kind}{size}" for kind in ("ord", "ver") for size in SIZES]
ROWS = ((64 << 10, 128), (64 << 10, 1024), (256 << 10, 128), (1 << 20, 128), (1 << 20, 16),
        (256 << 10, 16), (2 << 20, 16), (16 << 10, 1024), (256 << 10, 1024))


def make(name: str) -> OrderedCopyBackend:
    backend = OrderedCopyBackend(GuardPolicy.RAISE,
                                 verify_fraction=0.01 if name.startswith("ver") else 0.0,
                                 verify_seed=0)
    backend.first_group_bytes = SIZES[name[3:]]
    return backend


def main() -> None:
    sweep(ROWS, NAMES, make, repeats=10)


if __name__ == "__main__":
    main()
