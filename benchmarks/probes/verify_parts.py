"""Where 1% verification's cost goes on the rows it misses 0.97x on: the committed path against
the same without its compare (memcmp skipped), without its compare and staging (no staging
descriptors: the sampling, hand-off, split and poll alone), and without the samples-first split.
Paired, pinned as the sweep.

Ran against commit 4f6572e; output in benchmarks/results/probes-h200/verify_parts.txt.
"""

from __future__ import annotations

from array import array
from typing import Any

from paired_rows import sweep, verify_figures

from kvguard.runtime import GuardPolicy, OrderedCopyBackend
from kvguard.runtime import backend as bm


class NoCompare(OrderedCopyBackend):
    def _differing(self, start: int, dst: list[int]) -> list[int]:
        return []


class NoStage(NoCompare):
    def _staging_descriptors(self, src: list[int], start: int) -> Any:
        return array("q"), array("q"), array("q")


class NoSplit(OrderedCopyBackend):
    def _issue(self, group: Any) -> None:
        saved = bm._SPLIT_FROM
        bm._SPLIT_FROM = 1 << 62
        try:
            super()._issue(group)
        finally:
            bm._SPLIT_FROM = saved


KINDS = {"ordered": OrderedCopyBackend, "verified": OrderedCopyBackend, "no_compare": NoCompare,
         "no_stage": NoStage, "no_split": NoSplit}
NAMES = list(KINDS)
ROWS = ((64 << 10, 128), (64 << 10, 1024), (256 << 10, 128))


def make(name: str) -> OrderedCopyBackend:
    return KINDS[name](GuardPolicy.RAISE, verify_fraction=0.0 if name == "ordered" else 0.01,
                       verify_seed=0)


def main() -> None:
    sweep(ROWS, NAMES, make, repeats=20,
          note=lambda row: verify_figures(row, NAMES[1:], mismatches=False))


if __name__ == "__main__":
    main()
