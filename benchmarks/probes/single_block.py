"""Single-block rows after a69cb8c: does the lazy group-cap query or the 1,024-block cap move them?

Pinned as the sweep. Variants paired with raw brackets (median of 10): new (a69cb8c), eager_cap
(a stream query before every group, as before a69cb8c), cap256 (max_group_blocks = 256).
"""

import statistics
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import runtime_bench as rb

from kvguard.runtime import BatchCopier, GuardPolicy, OrderedCopyBackend

speeds = rb.cpu_speeds(rounds=2)
ranked = sorted(speeds, key=lambda cpu: max(speeds[cpu]))
copy_cpu, request_cpu = ranked[0], ranked[1]
rb.pin(0, copy_cpu)
dev = torch.device("cuda", 0)
HOST = 1024


class EagerCap(OrderedCopyBackend):
    def _issue(self, group):
        self._group_block_cap(group[0].request.is_store, self.max_group_blocks)
        super()._issue(group)


for block, batch in (
    (16 << 10, 1),
    (64 << 10, 1),
    (256 << 10, 1),
    (1 << 20, 1),
    (16 << 10, 128),
    (64 << 10, 128),
):
    gpu = {"kv": torch.zeros(2 * HOST, block, dtype=torch.uint8, device=dev)}
    cpu = {"kv": torch.zeros(HOST, block, dtype=torch.uint8).pin_memory()}
    batches = rb.batches_for(block, batch)
    raw = BatchCopier(gpu, cpu, torch.cuda.Stream())
    variants = {}
    for name, cls, cap in (
        ("new", OrderedCopyBackend, 1024),
        ("eager_cap", EagerCap, 1024),
        ("cap256", OrderedCopyBackend, 256),
    ):
        b = cls(GuardPolicy.RAISE)
        b.max_group_blocks = cap
        b.init(gpu, cpu, dev, torch.cuda.Stream(), torch.cuda.Stream())
        rb.pin_backend_threads(b, copy_cpu, request_cpu)
        variants[name] = b
    compute = torch.cuda.Stream()
    rb.time_raw(raw, batches[:3])
    for b in variants.values():
        rb.pin(0, request_cpu)
        rb.time_backend(b, compute, batches[:3])
        rb.pin(0, copy_cpu)
    ratios = {n: [] for n in variants}
    for rep in range(10):
        names = list(variants)[rep % 3 :] + list(variants)[: rep % 3]
        for n in names:
            before = rb.time_raw(raw, batches)
            rb.pin(0, request_cpu)
            try:
                s = rb.time_backend(variants[n], compute, batches)
            finally:
                rb.pin(0, copy_cpu)
            after = rb.time_raw(raw, batches)
            ratios[n].append((before + after) / 2 / s)
    print(
        f"{block >> 10}K x {batch} ({len(batches)} stores, raw {rb.time_raw(raw, batches) * 1e3:.1f} ms): "
        + ", ".join(f"{n} {statistics.median(r):.3f} [{min(r):.2f}-{max(r):.2f}]" for n, r in ratios.items()),
        flush=True,
    )
    for b in variants.values():
        b.shutdown()
