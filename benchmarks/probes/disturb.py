"""Which side-stream work costs ordered stores bandwidth: while the ordered backend stores (its
window), a thread (on the verify thread's CPU) repeats one operation every PERIOD on a stream
of its own and polls an event behind it: a tiny device-to-host copy (a verdict), the same
after a wait on the store stream, a compare of two 4 MiB GPU row sets (PyTorch ne/any), that
compare and the verdict copy, 4 MiB device-to-host, 4 MiB host-to-device. Paired, pinned.

Ran against commit 4f6572e; output in benchmarks/results/probes-h200/disturb.txt.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import torch
from paired_rows import DEVICE, Pinned, compare, medians

from kvguard.runtime import GuardPolicy, OrderedCopyBackend

PERIOD = 8e-3
OPS = ["d2h_tiny", "d2h_tiny_wait", "compare", "compare_d2h", "compare_d2h_wait", "d2h_4m",
       "h2d_4m"]


class Disturbed:
    def __init__(self, op: str) -> None:
        self.inner = OrderedCopyBackend(GuardPolicy.RAISE)
        self.op = op
        self.active = threading.Event()
        self.done_ops = 0

    def init(self, gpu: Any, cpu: Any, device: Any, load: Any, store: Any) -> None:
        self.inner.init(gpu, cpu, device, load, store)
        self.store_stream = store
        self.stream = torch.cuda.Stream(DEVICE)
        self.a = torch.zeros(64, 65536, dtype=torch.uint8, device=DEVICE)
        self.b = torch.zeros(64, 65536, dtype=torch.uint8, device=DEVICE)
        self.verdicts = torch.zeros(64, dtype=torch.bool).pin_memory()
        self.host = torch.zeros(64, 65536, dtype=torch.uint8).pin_memory()
        self.flag = torch.zeros(64, dtype=torch.bool, device=DEVICE)
        self.event = torch.cuda.Event()
        self.thread = threading.Thread(target=self._loop, name="kvguard-verify", daemon=True)
        self._stop = False
        self.thread.start()
        self._threads = [*self.inner._threads, self.thread]

    def _loop(self) -> None:
        torch.cuda.set_device(DEVICE)
        while not self._stop:
            if not self.active.wait(0.05):
                continue
            # Scratch buffers nothing else writes or reads: these copies race with nothing, and
            # are unordered on purpose (the probe times side-stream traffic, not a store).
            with torch.cuda.stream(self.stream):
                if self.op.endswith("_wait"):
                    self.stream.wait_stream(self.store_stream)
                if self.op.startswith("compare"):
                    differs = torch.ne(self.a.view(torch.int64), self.b.view(torch.int64)).any(dim=1)
                    if "d2h" in self.op:
                        self.verdicts.copy_(differs, non_blocking=True)  # kvguard: ignore[KVG001]
                elif self.op.startswith("d2h_tiny"):
                    self.verdicts.copy_(self.flag, non_blocking=True)  # kvguard: ignore[KVG001]
                elif self.op == "d2h_4m":
                    self.host.copy_(self.a, non_blocking=True)  # kvguard: ignore[KVG001]
                elif self.op == "h2d_4m":
                    self.a.copy_(self.host, non_blocking=True)  # kvguard: ignore[KVG004]
                self.event.record(self.stream)
            while not self.event.query():
                time.sleep(100e-6)
            self.done_ops += 1
            time.sleep(PERIOD)

    def launch_copy(self, *args: Any, **kwargs: Any) -> None:
        self.active.set()
        self.inner.launch_copy(*args, **kwargs)

    def drain(self) -> None:
        self.inner.drain()
        self.active.clear()

    def shutdown(self) -> None:
        self._stop = True
        self.thread.join(1)
        self.inner.shutdown()


NAMES = ["ordered", *OPS]
ROWS = ((256 << 10, 128), (64 << 10, 128), (1 << 20, 128))


def make(name: str) -> Any:
    return OrderedCopyBackend(GuardPolicy.RAISE) if name == "ordered" else Disturbed(name)


def main() -> None:
    began = time.time()
    pinned = Pinned()
    for block, batch in ROWS:
        row = compare(pinned, block, batch, NAMES, make, repeats=12)
        ops = ", ".join(f"{n} {row.backends[n].done_ops}" for n in OPS)
        print(f"{block >> 10}K x {batch}: {medians(row.ratios)}; ops {ops}", flush=True)
        row.shutdown()
    print(f"total {time.time() - began:.0f} s", flush=True)


if __name__ == "__main__":
    main()
