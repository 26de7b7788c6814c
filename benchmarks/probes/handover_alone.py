"""Hand over for a large backlog however few requests hold it (handover_bytes_alone, 16 MiB)
against the hand-over at 16 requests and 4 MiB only (b3c2e6a). Pinned as the sweep; paired
with raw brackets, median over 10 repeats; also the ordered window's hand-overs.
"""

import statistics
import time

from paired_rows import Pinned, Row, paired, prepare

from kvguard.runtime import GuardPolicy, OrderedCopyBackend
from kvguard.runtime import backend as backend_module

sleeps = {"n": 0}
real_sleep = time.sleep


def counted_sleep(seconds: float) -> None:
    if seconds == backend_module._HANDOVER_SLEEP_S:
        sleeps["n"] += 1
    real_sleep(seconds)


backend_module.time.sleep = counted_sleep


def make(name: str) -> OrderedCopyBackend:
    backend = OrderedCopyBackend(GuardPolicy.RAISE)
    if name == "count_only":
        backend.handover_bytes_alone = 1 << 62
    return backend


NAMES = ("alone16M", "count_only")
pinned = Pinned()
for block, batch in ((256 << 10, 128), (256 << 10, 1024), (1 << 20, 16), (1 << 20, 128),
                     (2 << 20, 16), (2 << 20, 128), (16 << 10, 1024), (64 << 10, 1024),
                     (64 << 10, 128), (1 << 20, 1), (256 << 10, 16)):
    row = prepare(pinned, block, batch, NAMES, make)
    handovers = dict.fromkeys(NAMES, 0)

    def counted(name: str, row: Row = row, handovers: dict[str, int] = handovers) -> float:
        """A window, with the hand-overs (handover sleeps) it made."""
        before = sleeps["n"]
        seconds = row.window(name)
        handovers[name] += sleeps["n"] - before
        return seconds

    ratios = paired(row.raw, row.batches, counted, NAMES, 10)
    print(f"{row.heading(block, batch)}: " + ", ".join(
        f"{n} {statistics.median(r):.3f} "
        f"[{min(r):.3f}-{max(r):.3f}] hand-overs/window {handovers[n] / 10:.0f}"
        for n, r in ratios.items()), flush=True)
    row.shutdown()
