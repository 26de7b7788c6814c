"""How launch_copy hands the GIL to the copy thread in a burst: bytes4M (as committed: wait for
the copy thread to take a group, once 16 requests and 4 MiB wait), count16 (the same wait at
16 requests whatever their bytes), sleep50 (a 50 µs sleep at 16 requests, before) and none.

Pinned as the sweep. Paired with raw brackets, median over 10 repeats. Also: what a
time.sleep(50e-6) lasts on this machine.
"""

import time
from typing import Any

from paired_rows import Pinned, medians, paired, prepare

from kvguard.runtime import GuardPolicy, OrderedCopyBackend

pinned = Pinned()
lengths = []
for _ in range(2000):
    t = time.perf_counter()
    time.sleep(50e-6)
    lengths.append(time.perf_counter() - t)
lengths.sort()
print(f"time.sleep(50e-6) lasts p10/p50/p90 {lengths[200] * 1e6:.0f}/"
      f"{lengths[1000] * 1e6:.0f}/{lengths[1800] * 1e6:.0f} us", flush=True)


class Sleep50(OrderedCopyBackend):
    def _hand_over(self) -> None:
        time.sleep(50e-6)


class Counting(OrderedCopyBackend):
    handovers = 0

    def _hand_over(self) -> None:
        self.handovers += 1
        super()._hand_over()


VARIANTS: dict[str, Any] = {"bytes4M": Counting, "count16": OrderedCopyBackend, "sleep50": Sleep50,
                            "none": OrderedCopyBackend}


def make(name: str) -> OrderedCopyBackend:
    backend = VARIANTS[name](GuardPolicy.RAISE)
    if name in ("count16", "sleep50"):
        backend.handover_bytes = 0
    if name == "none":
        backend.handover_backlog = 1 << 30
    return backend


for block, batch in ((16 << 10, 1), (64 << 10, 1), (256 << 10, 1), (1 << 20, 1), (16 << 10, 16),
                     (64 << 10, 16), (256 << 10, 16), (1 << 20, 16), (16 << 10, 128),
                     (16 << 10, 1024)):
    row = prepare(pinned, block, batch, list(VARIANTS), make)
    before = row.backends["bytes4M"].handovers
    ratios = paired(row.raw, row.batches, row.window, list(VARIANTS), 10)
    hand = (row.backends["bytes4M"].handovers - before) / 10
    print(f"{row.heading(block, batch, f'bytes4M hand-overs/window {hand:.0f}')}: "
          f"{medians(ratios, range_digits=2)}", flush=True)
    row.shutdown()
