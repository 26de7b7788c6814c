"""Where the GPU read-back's cost is: 1% verified with the full read-back, against the same
with only its gate wait and verdict poll, only the host-to-device read, only the device-to-
device read, only the compare; and ordered alone. Paired, pinned as the sweep, 8 repeats.

Ran against commit 3c5f8be (verification read back on the GPU, reverted in 548554e); it
runs only there: `git checkout 3c5f8be -- kvguard`. Output in
benchmarks/results/probes-h200/readback_parts.txt.
"""

import statistics
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import runtime_bench as rb

from kvguard.runtime import BatchCopier, GuardPolicy, OrderedCopyBackend, driver
from kvguard.runtime.verify import plan_rows

speeds = rb.cpu_speeds(rounds=2)
ranked = sorted(speeds, key=lambda cpu: max(speeds[cpu]))
copy_cpu, request_cpu = ranked[0], ranked[1]
rb.pin(0, copy_cpu)
dev = torch.device("cuda", 0)
HOST = 1024


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
compute = torch.cuda.Stream()
for block, batch in ((256 << 10, 128), (1 << 20, 128), (64 << 10, 1024)):
    gpu = {"kv": torch.zeros(2 * HOST, block, dtype=torch.uint8, device=dev)}
    cpu = {"kv": torch.zeros(HOST, block, dtype=torch.uint8).pin_memory()}
    batches = rb.batches_for(block, batch)
    raw = BatchCopier(gpu, cpu, torch.cuda.Stream())
    variants = {}
    for n in NAMES:
        b = Parts(GuardPolicy.RAISE, verify_fraction=0.0 if n == "ordered" else 0.01, verify_seed=0)
        b.mode = n
        b.init(gpu, cpu, dev, torch.cuda.Stream(), torch.cuda.Stream())
        rb.pin_backend_threads(b, copy_cpu, request_cpu)
        variants[n] = b
    rb.time_raw(raw, batches[:3])
    for b in variants.values():
        rb.pin(0, request_cpu)
        rb.time_backend(b, compute, batches[:3])
        rb.pin(0, copy_cpu)
    ratios = {n: [] for n in NAMES}
    for rep in range(8):
        for n in NAMES[rep % 6 :] + NAMES[: rep % 6]:
            before = rb.time_raw(raw, batches)
            rb.pin(0, request_cpu)
            try:
                s = rb.time_backend(variants[n], compute, batches)
            finally:
                rb.pin(0, copy_cpu)
            after = rb.time_raw(raw, batches)
            ratios[n].append((before + after) / 2 / s)
    print(
        f"{block >> 10}K x {batch}: "
        + ", ".join(f"{n} {statistics.median(r):.3f} [{min(r):.3f}-{max(r):.3f}]" for n, r in ratios.items())
        + f"; checks {variants['full'].verify_stats['checks']}",
        flush=True,
    )
    for b in variants.values():
        b.shutdown()
