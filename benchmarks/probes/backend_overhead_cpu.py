"""The ordered backend's own host time per group, on a CPU, with copies that cost nothing.

The CUDA pieces are the test suite's stand-ins (tests/runtime/runtime_sim.py) and the copier's
copy is a no-op, so what is timed is the backend's Python around the driver calls: grouping,
the barrier, the check, the completion event and the report (`_issue`), and `launch_copy` on
the requesting thread (which includes its hand-over sleeps once 16 requests wait). Planning
is inside the copy and is not timed here (benchmarks/planner_speed.py times it).

CPU only: `python3 benchmarks/probes/backend_overhead_cpu.py`.
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import torch

from kvguard.runtime import GuardPolicy, OrderedCopyBackend

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests" / "runtime"))
import runtime_sim as sim  # the test suite's CUDA stand-ins


class TimedIssue(OrderedCopyBackend):
    """Adds up the copy thread's time in `_issue`."""

    issue_s = 0.0
    groups = 0

    def _issue(self, group: list[Any]) -> None:
        start = time.perf_counter()
        super()._issue(group)
        self.issue_s += time.perf_counter() - start
        self.groups += 1


def main() -> None:
    patch = pytest.MonkeyPatch()
    sim.install(patch)
    patch.setattr(sim.SimCopier, "copy", lambda self, *args, **kwargs: None)
    gpu, cpu = sim.make_caches(4096, 2048, width=1, names=("kv",))
    backend = TimedIssue(GuardPolicy.RAISE)
    sim.start(backend, gpu, cpu)
    rng = random.Random(0)
    print("blocks/store | stores | groups | _issue us/group | launch_copy us/call")
    for batch, stores in ((1024, 300), (128, 2000), (16, 4000), (1, 20000)):
        batches = [(rng.sample(range(4096), batch), rng.sample(range(2048), batch))
                   for _ in range(stores)]
        events: list[tuple[int, Any]] = []
        backend.issue_s, backend.groups = 0.0, 0
        launch_s = 0.0
        with torch.cuda.stream(sim.SimStream()):  # type: ignore[arg-type]
            for index, (src, dst) in enumerate(batches):
                start = time.perf_counter()
                backend.launch_copy(src, dst, True, index, events)
                launch_s += time.perf_counter() - start
        backend.drain()
        print(f"{batch} | {stores} | {backend.groups} | "
              f"{backend.issue_s / backend.groups * 1e6:.1f} | {launch_s / stores * 1e6:.1f}")
    backend.shutdown()
    patch.undo()


if __name__ == "__main__":
    main()
