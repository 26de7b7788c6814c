"""The hand-over sleep in launch_copy (_HANDOVER_SLEEP_S: 50 µs committed, which lasts about
106 µs) against other lengths, ordered. Every variant goes through the same subclass, which sets
the module's sleep before each launch. Paired, pinned as the sweep.

    python3 handover_sleep.py short   against 20 and 1 µs, 12 repeats (ran against 4f6572e;
                                      benchmarks/results/probes-h200/handover_sleep.txt)
    python3 handover_sleep.py long    against 200 and 500 µs, 15 repeats: does a requester that
                                      takes the GIL less often in a burst leave the copy thread
                                      cleaner runs? (ran against f04f6da; handover_sleep_long.txt)
"""

from __future__ import annotations

import statistics
import sys
import time
from typing import Any

from paired_rows import sweep

from kvguard.runtime import GuardPolicy, OrderedCopyBackend
from kvguard.runtime import backend as bm

SLEEPS = {"sleep50": 50e-6, "sleep20": 20e-6, "sleep1": 1e-6, "sleep200": 200e-6,
          "sleep500": 500e-6}
SETS = {
    "short": (("sleep50", "sleep20", "sleep1"),
              ((16 << 10, 1), (64 << 10, 1), (256 << 10, 1), (1 << 20, 1), (2 << 20, 1),
               (16 << 10, 16), (64 << 10, 16), (256 << 10, 16), (1 << 20, 16), (64 << 10, 128),
               (16 << 10, 1024)),
              12),
    "long": (("sleep50", "sleep200", "sleep500"),
             ((64 << 10, 128), (64 << 10, 1024), (256 << 10, 1), (16 << 10, 1024), (64 << 10, 16),
              (256 << 10, 128), (16 << 10, 128), (1 << 20, 16)),
             15),
}


class SleepSet(OrderedCopyBackend):
    sleep_s = 50e-6

    def launch_copy(self, *args: Any, **kwargs: Any) -> None:
        bm._HANDOVER_SLEEP_S = self.sleep_s
        super().launch_copy(*args, **kwargs)


def make(name: str) -> OrderedCopyBackend:
    backend = SleepSet(GuardPolicy.RAISE)
    backend.sleep_s = SLEEPS[name]
    return backend


def main() -> None:
    names, rows, repeats = SETS[sys.argv[1] if len(sys.argv) > 1 else "short"]
    for name in names:
        seconds = SLEEPS[name]
        lasted = []
        for _ in range(200):
            start = time.perf_counter()
            time.sleep(seconds)
            lasted.append((time.perf_counter() - start) * 1e6)
        lasted.sort()
        print(f"{name}: time.sleep({seconds:g}) lasts p10/p50/p90 "
              f"{lasted[20]:.0f}/{statistics.median(lasted):.0f}/{lasted[180]:.0f} us")
    sweep(rows, list(names), make, repeats=repeats)


if __name__ == "__main__":
    main()
