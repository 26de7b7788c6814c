"""Where the GPU read-back's cost is: 1% verified with the full read-back, against the same
with only its gate wait and verdict poll, only the host-to-device read, only the device-to-
device read, only the compare; and ordered alone. Paired, pinned as the sweep, 8 repeats.

Ran against commit 3c5f8be (verification read back on the GPU, reverted in 548554e); it
runs only there: `git checkout 3c5f8be -- kvguard`. Output in
benchmarks/results/probes-h200/readback_parts.txt.
"""

import torch
from paired_rows import Pinned, compare, medians

from kvguard.runtime import GuardPolicy, OrderedCopyBackend, driver
from kvguard.runtime.verify import plan_rows


class Parts(OrderedCopyBackend):
    mode = "full"

    def _read_back_differing(self, after, src, dst):
        if self.mode == "full":
            return super()._read_back_differing(after, src, dst)
        calls = self._event_calls
        stream = self._read_back_stream.cuda_stream
        if after:
            driver.check(calls.wait(stream, after), "wait")
        rb_ = self._read_back
        if len(src) > rb_.rows:
            rb_._allocate(len(src))
        if self.mode == "h2d":
            rb_._copy(
                plan_rows(
                    rb_._cpu_layout.base_addresses,
                    rb_._cpu_layout.block_bytes,
                    rb_._offsets,
                    dst,
                    rb_._host_rows.data_ptr(),
                    rb_._row_bytes,
                ),
                "h",
            )
        elif self.mode == "d2d":
            rb_._copy(
                plan_rows(
                    rb_._gpu_layout.base_addresses,
                    rb_._gpu_layout.block_bytes,
                    rb_._offsets,
                    src,
                    rb_._source_rows.data_ptr(),
                    rb_._row_bytes,
                ),
                "d",
            )
        elif self.mode == "compare":
            with torch.cuda.stream(self._read_back_stream):
                n = len(src)
                d = torch.ne(
                    rb_._host_rows[:n].view(torch.int64), rb_._source_rows[:n].view(torch.int64)
                ).any(dim=1)
                rb_._verdicts[:n].copy_(d, non_blocking=True)
        driver.check(calls.record(self._verdicts_ready, stream), "record")
        self._wait_for(self._verdicts_ready)
        return []


NAMES = ["ordered", "full", "poll", "h2d", "d2d", "compare"]


def make(name: str) -> Parts:
    backend = Parts(GuardPolicy.RAISE, verify_fraction=0.0 if name == "ordered" else 0.01,
                    verify_seed=0)
    backend.mode = name
    return backend


pinned = Pinned()
for block, batch in ((256 << 10, 128), (1 << 20, 128), (64 << 10, 1024)):
    row = compare(pinned, block, batch, NAMES, make, repeats=8)
    print(f"{block >> 10}K x {batch}: {medians(row.ratios)}; checks "
          f"{row.backends['full'].verify_stats['checks']}", flush=True)
    row.shutdown()
